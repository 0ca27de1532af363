// One TMA copy per input line, on a real GPU: encode the map (sweep.txt format), run a one-thread kernel
// (PTX JIT-compiled by the driver) doing the load (smem pre-filled 0xAB) or the store (smem filled with
// byte j = j*7+1, global zeroed), print the completion flag and a hex dump. Global bytes before a copy:
// word k (u32) = 0x40000000 | k. Build: cc -O1 -o tma tma_check.c -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef int R; typedef unsigned long long P;
#define F(n, ...) __typeof__(R(*)(__VA_ARGS__)) n = (__typeof__(R(*)(__VA_ARGS__)))dlsym(lib, #n)
static int rd(FILE *f, long long *v) { int n; if (fscanf(f, "%d", &n) != 1) return -1; for (int i = 0; i < n; i++) if (fscanf(f, "%lld", &v[i]) != 1) return -1; return n; }
int main(int argc, char **argv) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  F(cuInit, unsigned); F(cuDeviceGet, int *, int); F(cuDevicePrimaryCtxRetain, void **, int); F(cuCtxSetCurrent, void *);
  F(cuMemAlloc_v2, P *, size_t); F(cuMemcpyHtoD_v2, P, const void *, size_t); F(cuMemcpyDtoH_v2, void *, P, size_t);
  F(cuModuleLoadDataEx, void **, const void *, unsigned, void *, void *); F(cuModuleGetFunction, void **, void *, const char *);
  F(cuLaunchKernel, void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
  F(cuCtxSynchronize, void); F(cuTensorMapEncodeTiled, ); F(cuTensorMapEncodeIm2col, );
  int d; void *c; cuInit(0); cuDeviceGet(&d, 0); cuDevicePrimaryCtxRetain(&c, d); cuCtxSetCurrent(c);
  size_t G = 1 << 22; P g, tm, out; cuMemAlloc_v2(&g, G); cuMemAlloc_v2(&tm, 256); cuMemAlloc_v2(&out, 1 << 16);
  uint32_t *host = malloc(G); FILE *f = fopen(argv[1], "r"); static char ptx[8192];
  for (;;) {
    long long fn, dt, rank, addr, dims[8], str[8], box[8], lo[8], hi[8], lw, hw, cpp, ppc, es[8], il, mode, sw, l2, oob, op, co[8], of[8], dst, tx, dump;
    if (fscanf(f, "%lld %lld %lld %lld", &fn, &dt, &rank, &addr) != 4) break;
    int nd = rd(f, dims), ns = rd(f, str), nb = rd(f, box), nl = rd(f, lo), nh = rd(f, hi); (void)nd; (void)ns; (void)nb; (void)nl; (void)nh;
    if (fscanf(f, "%lld %lld %lld %lld", &lw, &hw, &cpp, &ppc) != 4) break;
    rd(f, es); if (fscanf(f, "%lld %lld %lld %lld %lld %lld", &il, &mode, &sw, &l2, &oob, &op) != 6) break;
    int nc = rd(f, co), no = rd(f, of); if (fscanf(f, "%lld %lld %lld", &dst, &tx, &dump) != 3) break;
    uint64_t D[8], S[8]; uint32_t B[8], E[8]; int L[8], H[8];
    for (int i = 0; i < 8; i++) { D[i] = dims[i]; S[i] = str[i]; B[i] = box[i]; E[i] = es[i]; L[i] = lo[i]; H[i] = hi[i]; }
    _Alignas(128) uint64_t map[16]; R r;
    void *ga = (void *)(uintptr_t)(g + addr);
    if (fn == 0) r = ((R(*)(void *, int, uint32_t, void *, const uint64_t *, const uint64_t *, const uint32_t *, const uint32_t *, int, int, int, int))cuTensorMapEncodeTiled)(map, dt, rank, ga, D, S, B, E, il, sw, l2, oob);
    else r = ((R(*)(void *, int, uint32_t, void *, const uint64_t *, const uint64_t *, const int *, const int *, uint32_t, uint32_t, const uint32_t *, int, int, int, int))cuTensorMapEncodeIm2col)(map, dt, rank, ga, D, S, L, H, cpp, ppc, E, il, sw, l2, oob);
    if (r) { printf("enc %d\n", r); continue; }
    for (size_t k = 0; k < G / 4; k++) host[k] = op == 2 ? 0 : (0x40000000u | k);
    cuMemcpyHtoD_v2(g, host, G); cuMemcpyHtoD_v2(tm, map, 128);
    char cs[128] = "", os[64] = "", regs[256] = "";
    for (int i = 0; i < nc; i++) { char t[32]; sprintf(t, "%s%lld", i ? ", " : "", co[i]); strcat(cs, t); }
    for (int i = 0; i < no; i++) { char t[32]; sprintf(t, "%s%lld", i ? ", " : "", of[i]); strcat(os, t); }
    (void)regs;
    const char *mode_s = fn == 1 ? (op == 2 ? "im2col_no_offs" : "im2col") : "tile";
    char copy[512];
    if (op == 2) sprintf(copy, "cp.async.bulk.tensor.%lldd.global.shared::cta.%s.bulk_group [%%rd1, {%s}], [%%r8];\n cp.async.bulk.commit_group;\n cp.async.bulk.wait_group 0;\n mov.u32 %%r21, 1; bra DONE;", rank, mode_s, cs);
    else if (fn == 1) { char h[128] = ""; for (int i = 0; i < no; i++) { char t[64]; sprintf(t, " mov.b16 %%h%d, %lld;\n", i, of[i]); strcat(h, t); }
      char hs[64] = ""; for (int i = 0; i < no; i++) { char t[16]; sprintf(t, "%s%%h%d", i ? ", " : "", i); strcat(hs, t); }
      sprintf(copy, "%s cp.async.bulk.tensor.%lldd.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%%r8], [%%rd1, {%s}], [%%r7], {%s};", h, rank, cs, hs); }
    else sprintf(copy, "cp.async.bulk.tensor.%lldd.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%%r8], [%%rd1, {%s}], [%%r7];", rank, cs);
    sprintf(ptx, ".version 8.0\n.target sm_90a\n.address_size 64\n.extern .shared .align 1024 .b8 sm[];\n.shared .align 8 .b64 mb;\n"
      ".visible .entry k(.param .u64 a, .param .u64 b)\n{\n .reg .b64 %%rd<8>; .reg .b32 %%r<32>; .reg .b16 %%h<4>; .reg .pred %%p<4>;\n"
      " ld.param.u64 %%rd1, [a]; ld.param.u64 %%rd2, [b]; mov.u32 %%r4, sm; mov.u32 %%r7, mb; mov.u32 %%r5, 0; mov.u32 %%r21, 0;\n"
      "FILL: setp.ge.u32 %%p1, %%r5, %lld; @%%p1 bra FILLED; add.u32 %%r6, %%r4, %%r5; mul.lo.u32 %%r9, %%r5, 7; add.u32 %%r9, %%r9, 1; and.b32 %%r9, %%r9, 255;"
      " %s st.shared.u8 [%%r6], %%r10; add.u32 %%r5, %%r5, 1; bra FILL;\nFILLED:\n"
      " mbarrier.init.shared::cta.b64 [%%r7], 1; fence.mbarrier_init.release.cluster; fence.proxy.async.shared::cta;\n"
      " add.u32 %%r8, %%r4, %lld; mbarrier.arrive.expect_tx.shared::cta.b64 %%rd5, [%%r7], %lld;\n %s\n mov.u32 %%r20, 0;\n"
      "WAIT: mbarrier.try_wait.parity.shared::cta.b64 %%p2, [%%r7], 0; @%%p2 bra OK; add.u32 %%r20, %%r20, 1; setp.lt.u32 %%p3, %%r20, 200000; @%%p3 bra WAIT; bra DONE;\n"
      "OK: mov.u32 %%r21, 1;\nDONE: st.global.u32 [%%rd2], %%r21; mov.u32 %%r5, 0;\n"
      "CP: setp.ge.u32 %%p1, %%r5, %lld; @%%p1 bra END; add.u32 %%r6, %%r4, %%r5; ld.shared.u8 %%r10, [%%r6]; cvt.u64.u32 %%rd3, %%r5; add.u64 %%rd4, %%rd2, %%rd3; st.global.u8 [%%rd4+16], %%r10; add.u32 %%r5, %%r5, 1; bra CP;\nEND: ret;\n}\n",
      dump, op == 2 ? "mov.u32 %r10, %r9;" : "mov.u32 %r10, 171;", dst, tx, copy, dump);
    void *mod, *fun; char log[4096] = ""; int opts[2] = {5, 6}; void *vals[2] = {log, (void *)4096};
    r = cuModuleLoadDataEx(&mod, ptx, 2, opts, vals);
    if (r) { printf("jit %d %s\n", r, log); continue; }
    cuModuleGetFunction(&fun, mod, "k");
    void *args[2] = {&tm, &out};
    r = cuLaunchKernel(fun, 1, 1, 1, 1, 1, 1, 40000, 0, args, 0);
    R s = cuCtxSynchronize();
    unsigned char buf[1 << 16]; cuMemcpyDtoH_v2(buf, out, 16 + dump);
    unsigned char *gb = (unsigned char *)host; cuMemcpyDtoH_v2(host, g, dump);
    printf("run %d %d flag %u\n", r, s, *(uint32_t *)buf);
    unsigned char *src = op == 2 ? gb : buf + 16;
    for (long long i = 0; i < dump; i++) printf("%02x%s", src[i], (i % 64 == 63) ? "\n" : "");
    printf("\n");
  }
  return 0;
}
