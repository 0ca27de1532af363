# call 3 (nvidia-h200-x2): the bench's devices row, twice, on the final binary
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nproc
/tmp/bin/new fuzz --config legal --seed 3 --seconds 8 --devices 0,1 --out /tmp/f-warm > /dev/null 2>&1
for r in 1 2; do /tmp/bin/new bench --only devices --devices 0,1 --fuzz-seconds 30 --out $OUT/bench-devices-$r.json > $OUT/bench-devices-$r.txt 2>&1; echo "== run $r rc $?"; grep -A3 "^devices" $OUT/bench-devices-$r.txt | cut -c1-150; done
