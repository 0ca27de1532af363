# call 4: the mutants campaign at the default K = 80 (9457ab8, --features mutants), as on 2026-11-28 but for K
# .dev/m/mut.xz: the stripped release build with --features mutants of the commit named
mkdir -p /tmp/bin && xz -dc .dev/m/mut.xz > /tmp/bin/mut && chmod +x /tmp/bin/mut
export PTXAS=/usr/local/cuda/bin/ptxas
PTXCONFORM_CACHE=/tmp/c-m /tmp/bin/mut fuzz --mutants --seed 7 --config mixed --trap-budget 0.25 --seconds 60 --out /tmp/mc > $OUT/log.txt 2>&1
grep -E "^programs|^done|^wall|^predicted" $OUT/log.txt | cut -c1-250; cp /tmp/mc/campaign.json $OUT/
/tmp/bin/mut mutants --campaign /tmp/mc --json $OUT/mutants.json > $OUT/mutants.txt 2>&1; tail -25 $OUT/mutants.txt
