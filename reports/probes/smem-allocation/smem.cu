// Probe: where does a bulk copy into (or out of) shared memory past the CTA's dynamic allocation trap?
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

__global__ void k(const char* g, char* gout, unsigned off, unsigned size, int dir, int* flag) {
  extern __shared__ __align__(128) char smem[];
  if (threadIdx.x != 0) return;
  unsigned bar = (unsigned)__cvta_generic_to_shared(smem);
  unsigned dst = bar + off;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar));
  asm volatile("fence.mbarrier_init.release.cluster;");
  if (dir == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(size));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(dst), "l"(g), "r"(size), "r"(bar) : "memory");
    unsigned done = 0; long long n = 0;
    while (!done && n < 2000000) {
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(bar)); n++;
    }
    *flag = done ? 1 : 2;
  } else {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(gout), "r"(dst), "r"(size) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    *flag = 1;
  }
}

int main(int argc, char** argv) {
  unsigned S = atoi(argv[1]), off = atoi(argv[2]), size = atoi(argv[3]); int dir = argc > 4 ? atoi(argv[4]) : 0;
  char *g, *go; int* flag;
  cudaMalloc(&g, 1 << 20); cudaMalloc(&go, 1 << 20); cudaMalloc(&flag, 4); cudaMemset(flag, 0, 4);
  if (S > 48 * 1024) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S);
  k<<<1, 32, S>>>(g, go, off, size, dir, flag);
  cudaError_t e = cudaDeviceSynchronize();
  int h = -1; if (e == cudaSuccess) cudaMemcpy(&h, flag, 4, cudaMemcpyDeviceToHost);
  printf("S=%u off=%u size=%u dir=%d end=%u over=%d -> %s flag=%d\n", S, off, size, dir, off + size,
         (int)(off + size) - (int)S, e == cudaSuccess ? "ok" : cudaGetErrorName(e), h);
  return 0;
}
