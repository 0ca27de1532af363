# call 3 (nvidia-h200): the mutants campaign on generator 10 and the tensor reading (--features
# mutants build of bfaeb14), seed 7, 60 s, as call 3 of h200-2026-12-01t
mkdir -p /tmp/bin && xz -dc .dev/carry/mut.xz > /tmp/bin/m && chmod +x /tmp/bin/m
export PTXAS=/usr/local/cuda/bin/ptxas
mkdir -p /tmp/logs
PTXCONFORM_CACHE=/tmp/c-m /tmp/bin/m fuzz --mutants --seed 7 --config mixed --trap-budget 0.25 --seconds 60 --out /tmp/mc --regressions /tmp/reg7 > /tmp/logs/mutants-campaign.txt 2>&1
grep -E "^done|^finding|^NEW|^sustained|^coverage" /tmp/logs/mutants-campaign.txt | cut -c1-300 | tee $OUT/mutants-campaign.txt
/tmp/bin/m mutants --campaign /tmp/mc --json /tmp/logs/mutants.json > /tmp/logs/mutants.txt 2>&1; tail -8 /tmp/logs/mutants.txt
cp /tmp/logs/mutants.txt /tmp/logs/mutants.json $OUT/
