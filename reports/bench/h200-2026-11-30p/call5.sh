# call 12: generator 5 (planted parity-wait races): a mixed campaign without and one with
# concurrent episodes
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s timeout 170 $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  grep -E "^done|^finding|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -8 | tee $OUT/camp$s.txt; ls /tmp/reg$s
  grep -E "parity_wait_race|A-MB-PARITY-PASSED|A-MB-COPIES" /tmp/logs/cov$s.md | tee -a $OUT/camp$s.txt; }
run 35 --config mixed --trap-budget 0.25 --seconds 130
run 36 --config mixed --concurrent 96 --trap-budget 0.25 --seconds 110
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg35 reg36
