// Loads CUBIN, runs copy_with_hint(src, dst, policy) with policy number POLICY_INDEX, and prints
// whether it completed (and the copied word) or failed. One run per process: a trap ends the
// process's use of the GPU.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void *slurp(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb"); if (!f) return 0; fseek(f, 0, SEEK_END); *n = ftell(f); rewind(f);
    void *b = malloc(*n); fread(b, 1, *n, f); fclose(f); return b;
}
int main(int argc, char **argv) {
    unsigned long long policies[] = {0x14F0000000000000ULL, 0ULL, 0x12F0000000000000ULL};
    cuInit(0); CUdevice d; cuDeviceGet(&d, 0);
    if (argc != 3) { fprintf(stderr, "usage: probe CUBIN POLICY_INDEX\n"); return 2; }
    int i = 1, k = atoi(argv[2]);
    {
        CUcontext c; cuCtxCreate(&c, NULL, 0, d);
        size_t n; void *img = slurp(argv[i], &n); CUmodule m; CUfunction fn;
        CUresult r = cuModuleLoadData(&m, img);
        if (!r) r = cuModuleGetFunction(&fn, m, "copy_with_hint");
        CUdeviceptr src, dst; unsigned v = 0xC0FFEE01, out = 0;
        cuMemAlloc(&src, 64); cuMemAlloc(&dst, 64); cuMemcpyHtoD(src, &v, 4); cuMemsetD8(dst, 0, 64);
        void *args[] = {&src, &dst, &policies[k]};
        if (!r) r = cuLaunchKernel(fn, 1,1,1, 1,1,1, 0, 0, args, 0);
        if (!r) r = cuCtxSynchronize();
        if (!r) r = cuMemcpyDtoH(&out, dst, 4);
        const char *name = ""; cuGetErrorName(r, &name);
        printf("%-40s policy 0x%016llx: %s%s", argv[i], policies[k], r ? "ERROR " : "completed", r ? name : "");
        if (!r) printf(", copied 0x%08x", out);
        printf("\n"); fflush(stdout);
        cuCtxDestroy(c);
    }
    return 0;
}
