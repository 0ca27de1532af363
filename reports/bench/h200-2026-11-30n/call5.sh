# call 5: the model of 89bd00a (--features mutants build): the seed-7 mutants campaign (60 s, scored), then 150 s mixed campaigns on seeds 15 and 16
mkdir -p /tmp/bin && xz -dc .dev/carry/mut.xz > /tmp/bin/mut && chmod +x /tmp/bin/mut
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/mut
mkdir -p /tmp/logs /tmp/reg7 /tmp/reg15 /tmp/reg16
PTXCONFORM_CACHE=/tmp/c-m $P fuzz --mutants --seed 7 --config mixed --trap-budget 0.25 --seconds 60 --out /tmp/mc --regressions /tmp/reg7 > /tmp/logs/mutants-campaign.txt 2>&1
grep -E "^done|^finding" /tmp/logs/mutants-campaign.txt | cut -c1-250
$P mutants --campaign /tmp/mc --json /tmp/logs/mutants.json > /tmp/logs/mutants.txt 2>&1; tail -6 /tmp/logs/mutants.txt
for s in 15 16; do
PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s --config mixed --trap-budget 0.25 --seconds 150 --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
grep -E "^done|^finding|^predicted|^sustained" /tmp/logs/camp$s.txt | cut -c1-300 | tail -8; ls /tmp/reg$s
done
cp /tmp/logs/mutants.txt $OUT/
tar -C /tmp -cJf $OUT/reg.tar.xz reg7 reg15 reg16; tar -C /tmp -cJf $OUT/logs.tar.xz logs
