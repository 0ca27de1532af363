# call 7 (nvidia-h200, 16 cores): 0f89708, --config mixed (trap share and budget), seeds 0 and 1
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
for seed in 0 1; do PTXCONFORM_CACHE=/tmp/cache-m$seed $P fuzz --config mixed --seed $seed --seconds 20 --out /tmp/m$seed > $OUT/mixed-$seed.txt 2>&1; echo "== mixed seed $seed"; grep -E "^done|trap|hang" $OUT/mixed-$seed.txt | tail -4 | cut -c1-260; done
