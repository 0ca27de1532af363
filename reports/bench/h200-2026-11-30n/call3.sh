# call 3: the mutants campaign (seed 7, mixed, trap budget 0.25, 60 s, K = 80) on 84351d1's model, scored; a 150 s mixed campaign on seed 13; the all-families bench row (30 s)
mkdir -p /tmp/bin && xz -dc .dev/carry/mut.xz > /tmp/bin/mut && chmod +x /tmp/bin/mut
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/mut
mkdir -p /tmp/logs /tmp/reg7 /tmp/reg13
PTXCONFORM_CACHE=/tmp/c-m $P fuzz --mutants --seed 7 --config mixed --trap-budget 0.25 --seconds 60 --out /tmp/mc --regressions /tmp/reg7 > /tmp/logs/mutants-campaign.txt 2>&1
grep -E "^done|^finding" /tmp/logs/mutants-campaign.txt | cut -c1-250
$P mutants --campaign /tmp/mc --json /tmp/logs/mutants.json > /tmp/logs/mutants.txt 2>&1; tail -6 /tmp/logs/mutants.txt
PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed 13 --config mixed --trap-budget 0.25 --seconds 150 --out /tmp/ms --regressions /tmp/reg13 > /tmp/logs/camp13.txt 2>&1
grep -E "^done|^finding|^predicted|^sustained" /tmp/logs/camp13.txt | cut -c1-300 | tail -8; ls /tmp/reg13
PTXCONFORM_CACHE=/tmp/c-b $P bench --only fuzz --fuzz-mixes all --fuzz-seconds 30 --out /tmp/logs/bench.json > /tmp/logs/bench.txt 2>&1; tail -4 /tmp/logs/bench.txt
cp /tmp/logs/mutants.txt /tmp/logs/bench.txt $OUT/
tar -C /tmp -cJf $OUT/reg.tar.xz reg7 reg13; tar -C /tmp -cJf $OUT/logs.tar.xz logs
