# call 7: 8354bc6 (the code of 3562b79): every family mix's fuzz row, 10 s; a mixed campaign with a trap budget
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
$P --version; $PTXAS --version | tail -2
PTXCONFORM_CACHE=/tmp/c-bench $P bench --only fuzz --fuzz-seconds 10 --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1; grep -A9 "^fuzz mix" $OUT/bench-fuzz.txt | cut -c1-160
PTXCONFORM_CACHE=/tmp/c-mixed $P fuzz --config mixed --trap-budget 0.25 --seed 0 --seconds 30 --out /tmp/fm > $OUT/fz-mixed.txt 2>&1; grep -E "^done|^sustained|^predicted|trap budget" $OUT/fz-mixed.txt | cut -c1-200
