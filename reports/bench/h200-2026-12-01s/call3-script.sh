# call 3 (nvidia-h200-x2): the devices row at K = 256, 1024 and 4096 (30 s a row)
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
for K in 1024 4096 256; do
PTXCONFORM_CACHE=/tmp/c-$K $P bench --only devices --devices 0,1 --fuzz-seconds 30 --fuzz-values-per-shape $K --out $OUT/devices-k$K.json > $OUT/devices-k$K.txt 2>&1; grep -v coverage $OUT/devices-k$K.txt | tail -3 | cut -c1-250
done
