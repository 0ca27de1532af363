# call 7 (2026-11-30q): the mutants campaign (seed 7, mixed, 60 s) on H31's model (78ade3b), scored
mkdir -p /tmp/bin && xz -dc .dev/carry/mut7.xz > /tmp/bin/m7 && chmod +x /tmp/bin/m7
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/m7
PTXCONFORM_CACHE=/tmp/c7 timeout 100 $P fuzz --mutants --seed 7 --config mixed --trap-budget 0.25 --seconds 60 --out /tmp/mc --regressions $OUT/reg > $OUT/log.txt 2>&1
grep -E "^done|^finding" $OUT/log.txt | cut -c1-300
timeout 60 $P mutants --campaign /tmp/mc --json $OUT/mutants.json > $OUT/mutants.txt 2>&1; grep "^campaign\|of the 72\|time to kill" $OUT/mutants.txt
