# session 2026-11-30 call 5 (nvidia-h200): ac34557, the all-families bench row over 60 s, and a 60 s campaign
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
$P bench --reference-only --only shapes --cases 16384 --naive 0 --fuzz-seconds 0 --out $OUT/ref.json > $OUT/ref.txt 2>&1; grep -A2 "^fixed" $OUT/ref.txt | cut -c1-90
PTXCONFORM_CACHE=/tmp/c-bench $P bench --only fuzz --fuzz-mixes all --fuzz-seconds 60 --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1; grep -A3 "^fuzz mix" $OUT/bench-fuzz.txt
PTXCONFORM_CACHE=/tmp/c-f0 $P fuzz --config legal --seed 0 --seconds 60 --out /tmp/f0 > $OUT/fz-s0.txt 2>&1; grep -E "^done|^sustained" $OUT/fz-s0.txt | cut -c1-140
