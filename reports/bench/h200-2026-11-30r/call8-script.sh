# call 8 (nvidia-h200): the final model (HEAD): the corpus live against baseline
# h200-2026-11-30-59a14fa, then a mixed campaign on the cp.async and mbarrier families, seed 48
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs /tmp/reg48
( time $P run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -6 /tmp/logs/corpus.txt | tee $OUT/corpus.txt
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-30-59a14fa/summary.json /tmp/r1/summary.json | tee $OUT/corpus-cmp.txt
PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed 48 --config mixed --families cp_async,mbarrier --trap-budget 0.25 --seconds 60 --out /tmp/ms48 --regressions /tmp/reg48 > /tmp/logs/camp48.txt 2>&1
grep -E "^done|^finding|^NEW|^predicted|^sustained|^coverage" /tmp/logs/camp48.txt | cut -c1-400 | tee $OUT/camp48.txt; ls /tmp/reg48
