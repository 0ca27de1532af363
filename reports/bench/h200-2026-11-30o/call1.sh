# call 1: the corpus live on HEAD against the baseline, then two 150 s mixed campaigns on new seeds
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
$P --version | tee $OUT/version.txt
( time $P run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -15 /tmp/logs/corpus.txt > $OUT/corpus.txt
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json | tee $OUT/corpus-cmp.txt
cp /tmp/r1/summary.json /tmp/logs/corpus-summary.json
for s in 18 19; do
  mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s --config mixed --trap-budget 0.25 --seconds 150 --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  grep -E "^done|^finding|^predicted|^sustained" /tmp/logs/camp$s.txt | cut -c1-300 | tail -8 | tee $OUT/camp$s.txt; ls /tmp/reg$s
done
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg18 reg19
