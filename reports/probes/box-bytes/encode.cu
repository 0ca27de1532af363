// Probe: which tiled boxes does cuTensorMapEncodeTiled refuse for their size alone?
#include <cstdio>
#include <cuda.h>

int main() {
  cuInit(0); CUdevice d; cuDeviceGet(&d, 0); CUcontext c; cuCtxCreate(&c, nullptr, 0, d);
  CUdeviceptr g; cuMemAlloc(&g, 1 << 26);
  struct T { CUtensorMapDataType t; int size; const char* n; } types[] = {
    {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, "uint8"}, {CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, "uint16"},
    {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, "float32"}, {CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 8, "float64"}};
  for (auto& ty : types) {
    for (unsigned rank = 2; rank <= 3; rank++) {
      unsigned lo = 0;  // largest box bytes accepted, sweeping the outer dim
      for (unsigned inner : {16u, 32u, 64u, 128u, 256u}) {
        if (inner * ty.size % 16) continue;
        for (unsigned outer = 1; outer <= 256; outer++) {
          cuuint64_t dims[3] = {256, 256, 256};
          cuuint64_t strides[2] = {256ull * ty.size, 256ull * 256 * ty.size};
          cuuint32_t box[3] = {inner, outer, rank == 3 ? 2u : 1u};
          cuuint32_t es[3] = {1, 1, 1};
          CUtensorMap m;
          CUresult r = cuTensorMapEncodeTiled(&m, ty.t, rank, (void*)g, dims, strides, box, es,
              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
          unsigned bytes = inner * outer * box[2] * ty.size;
          static int last = -1;
          if ((int)(r == CUDA_SUCCESS) != last || outer == 256)
            printf("%s rank %u box [%u,%u%s] = %u B -> %s\n", ty.n, rank, inner, outer,
                   rank == 3 ? ",2" : "", bytes, r == CUDA_SUCCESS ? "accepted" : "refused");
          last = (r == CUDA_SUCCESS);
        }
      }
    }
  }
  return 0;
}
