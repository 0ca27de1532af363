# call 8 (nvidia-h200-x2): 320b1ba, the devices row with the host's CPU share
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc
PTXCONFORM_CACHE=/tmp/c-dev $P bench --only devices --devices 0,1 --fuzz-seconds 45 --out $OUT/bench-devices.json > $OUT/bench-devices.txt 2>&1; grep -v coverage $OUT/bench-devices.txt | cut -c1-200
