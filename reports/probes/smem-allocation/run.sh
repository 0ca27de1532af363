set -u
cd "$(dirname "$0")"  # needs nvcc (CUDA 13.0 image); a probe, not part of the tool
/usr/local/cuda/bin/nvcc -arch=sm_90a -O2 -o /tmp/smem smem.cu || exit 1
for S in 64 128 256 1024 1040 4096 49152 65536 200704 232448; do
  for over in 0 16 112 128 240 256 512 1008 1024 1040 2048 4096 8192 65536; do
    size=256; end=$((S + over)); off=$((end - size)); [ $off -lt 16 ] && { off=16; size=$((end - 16)); }
    [ $size -le 0 ] && continue
    for dir in 0 1; do timeout 20 /tmp/smem $S $off $size $dir; done
  done
done
