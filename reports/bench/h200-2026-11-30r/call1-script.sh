# call 1 (nvidia-h200-x2): 2756b1b, the devices row at K = 80 and K = 256
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc; nvidia-smi -L
for K in 80 256; do
PTXCONFORM_CACHE=/tmp/c-$K $P bench --only devices --devices 0,1 --fuzz-seconds 30 --fuzz-values-per-shape $K --out $OUT/bench-devices-k$K.json > $OUT/bench-devices-k$K.txt 2>&1; grep -v coverage $OUT/bench-devices-k$K.txt | cut -c1-250
done
