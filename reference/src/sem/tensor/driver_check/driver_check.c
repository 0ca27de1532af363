// Calls cuTensorMapEncode{Tiled,Im2col,Im2colWide} for every line of sweep.txt (written by the
// `dump_sweep_for_driver` test) and prints one CUresult per line. globalAddress in the sweep is an
// offset from a 1024-byte aligned device allocation. Build: cc -O1 -o driver_check driver_check.c -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;
typedef struct { _Alignas(128) uint64_t opaque[16]; } CUtensorMap;

typedef CUresult (*tiled_t)(CUtensorMap *, int, uint32_t, void *, const uint64_t *, const uint64_t *, const uint32_t *, const uint32_t *, int, int, int, int);
typedef CUresult (*im2col_t)(CUtensorMap *, int, uint32_t, void *, const uint64_t *, const uint64_t *, const int *, const int *, uint32_t, uint32_t, const uint32_t *, int, int, int, int);
typedef CUresult (*wide_t)(CUtensorMap *, int, uint32_t, void *, const uint64_t *, const uint64_t *, int, int, uint32_t, uint32_t, const uint32_t *, int, int, int, int, int);

static int rd_u64s(FILE *f, uint64_t *v) { int n; if (fscanf(f, "%d", &n) != 1) return -1; for (int i = 0; i < n; i++) if (fscanf(f, "%llu", (unsigned long long *)&v[i]) != 1) return -1; return n; }
static int rd_u32s(FILE *f, uint32_t *v) { int n; if (fscanf(f, "%d", &n) != 1) return -1; for (int i = 0; i < n; i++) if (fscanf(f, "%u", &v[i]) != 1) return -1; return n; }
static int rd_i32s(FILE *f, int *v) { int n; if (fscanf(f, "%d", &n) != 1) return -1; for (int i = 0; i < n; i++) if (fscanf(f, "%d", &v[i]) != 1) return -1; return n; }

int main(int argc, char **argv) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) { fprintf(stderr, "no libcuda\n"); return 2; }
    CUresult (*init)(unsigned) = dlsym(lib, "cuInit");
    CUresult (*devget)(CUdevice *, int) = dlsym(lib, "cuDeviceGet");
    CUresult (*retain)(CUcontext *, CUdevice) = dlsym(lib, "cuDevicePrimaryCtxRetain");
    CUresult (*setcur)(CUcontext) = dlsym(lib, "cuCtxSetCurrent");
    CUresult (*alloc)(CUdeviceptr *, size_t) = dlsym(lib, "cuMemAlloc_v2");
    CUresult (*drv)(int *) = dlsym(lib, "cuDriverGetVersion");
    tiled_t tiled = (tiled_t)dlsym(lib, "cuTensorMapEncodeTiled");
    im2col_t im2col = (im2col_t)dlsym(lib, "cuTensorMapEncodeIm2col");
    wide_t wide = (wide_t)dlsym(lib, "cuTensorMapEncodeIm2colWide");
    int v = 0; drv(&v);
    fprintf(stderr, "driver %d tiled %p im2col %p wide %p\n", v, (void *)tiled, (void *)im2col, (void *)wide);
    CUdevice d; CUcontext c; CUdeviceptr base;
    if (init(0) || devget(&d, 0) || retain(&c, d) || setcur(c)) { fprintf(stderr, "init failed\n"); return 2; }
    if (alloc(&base, (size_t)1 << 26)) { fprintf(stderr, "alloc failed\n"); return 2; }
    base = (base + 1023) & ~1023ull;
    FILE *f = fopen(argc > 1 ? argv[1] : "sweep.txt", "r");
    if (!f) return 2;
    for (;;) {
        int fn, dt; uint32_t rank; unsigned long long addr;
        uint64_t dims[8], strides[8]; uint32_t box[8], es[8]; int lo[8], hi[8];
        int lw, hw; uint32_t cpp, ppc; int il, mode, sw, l2, oob;
        if (fscanf(f, "%d %d %u %llu", &fn, &dt, &rank, &addr) != 4) break;
        if (rd_u64s(f, dims) < 0 || rd_u64s(f, strides) < 0 || rd_u32s(f, box) < 0 || rd_i32s(f, lo) < 0 || rd_i32s(f, hi) < 0) break;
        if (fscanf(f, "%d %d %u %u", &lw, &hw, &cpp, &ppc) != 4 || rd_u32s(f, es) < 0) break;
        if (fscanf(f, "%d %d %d %d %d", &il, &mode, &sw, &l2, &oob) != 5) break;
        CUtensorMap m;
        void *ga = (void *)(uintptr_t)(base + addr);
        CUresult r;
        if (fn == 0) r = tiled(&m, dt, rank, ga, dims, strides, box, es, il, sw, l2, oob);
        else if (fn == 1) r = im2col(&m, dt, rank, ga, dims, strides, lo, hi, cpp, ppc, es, il, sw, l2, oob);
        else r = wide ? wide(&m, dt, rank, ga, dims, strides, lw, hw, cpp, ppc, es, il, mode, sw, l2, oob) : -1;
        printf("%d\n", r);
    }
    return 0;
}
