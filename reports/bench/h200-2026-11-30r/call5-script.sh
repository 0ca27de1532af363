# call 5 (nvidia-h200): 6ec7b13 (generator 8, A-ASYNC-ARRIVE-LANDS-HW): seed 41 again, new mixed
# seeds 43 and 44, then the mutants campaign (--features mutants build of 6ec7b13), seed 7
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p && xz -dc .dev/carry/mut.xz > /tmp/bin/m && chmod +x /tmp/bin/m
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  cp -r /tmp/ms$s/divergences /tmp/logs/div$s 2>/dev/null
  grep -E "^done|^finding|^NEW|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -14 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 41 --config mixed --trap-budget 0.25 --seconds 40
run 43 --config mixed --trap-budget 0.25 --seconds 70
run 44 --config mixed --concurrent 64 --trap-budget 0.25 --seconds 70
PTXCONFORM_CACHE=/tmp/c-m /tmp/bin/m fuzz --mutants --seed 7 --config mixed --trap-budget 0.25 --seconds 60 --out /tmp/mc --regressions /tmp/reg7 > /tmp/logs/mutants-campaign.txt 2>&1
grep -E "^done|^finding|^NEW" /tmp/logs/mutants-campaign.txt | cut -c1-300
/tmp/bin/m mutants --campaign /tmp/mc --json /tmp/logs/mutants.json > /tmp/logs/mutants.txt 2>&1; tail -8 /tmp/logs/mutants.txt
cp /tmp/logs/mutants.txt $OUT/
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg41 reg43 reg44 reg7
