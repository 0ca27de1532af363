# call 6 (nvidia-h200): 32e09b7 (generator 9): the corpus live against baseline
# h200-2026-11-30-59a14fa, mixed campaigns of generator 9 (bulk copies alone, seed 51; every
# family, seed 52), then the mutants campaign (--features mutants build of 32e09b7), seed 7
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p && xz -dc .dev/carry/mut.xz > /tmp/bin/m && chmod +x /tmp/bin/m
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
( time $P run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -6 /tmp/logs/corpus.txt | tee $OUT/corpus.txt
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-30-59a14fa/summary.json /tmp/r1/summary.json | tee $OUT/corpus-cmp.txt
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  cp -r /tmp/ms$s/divergences /tmp/logs/div$s 2>/dev/null
  grep -E "^done|^finding|^NEW|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -14 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 51 --config mixed --families bulk_copy --trap-budget 0.25 --seconds 60
run 52 --config mixed --trap-budget 0.25 --seconds 60
PTXCONFORM_CACHE=/tmp/c-m /tmp/bin/m fuzz --mutants --seed 7 --config mixed --trap-budget 0.25 --seconds 60 --out /tmp/mc --regressions /tmp/reg7 > /tmp/logs/mutants-campaign.txt 2>&1
grep -E "^done|^finding|^NEW" /tmp/logs/mutants-campaign.txt | cut -c1-300
/tmp/bin/m mutants --campaign /tmp/mc --json /tmp/logs/mutants.json > /tmp/logs/mutants.txt 2>&1; tail -8 /tmp/logs/mutants.txt
cp /tmp/logs/mutants.txt /tmp/logs/mutants.json $OUT/
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg51 reg52 reg7
