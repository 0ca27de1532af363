# call 3 (2026-11-30q): generator 7 (seven undefined mbarrier rules), mutants build: the mutants campaign
# (seed 7, mixed, 60 s) scored, then a 150 s mixed campaign (seed 39) with the rules' silicon outcomes
mkdir -p /tmp/bin /tmp/logs && xz -dc .dev/carry/mut7.xz > /tmp/bin/m7 && chmod +x /tmp/bin/m7
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/m7
camp() { t=$1; shift; mkdir -p /tmp/reg-$t
  PTXCONFORM_CACHE=/tmp/c-$t timeout 190 $P fuzz --mutants "$@" --out /tmp/mc-$t --regressions /tmp/reg-$t > /tmp/logs/log-$t.txt 2>&1
  echo "== $t"; grep -E "^done|^finding|^predicted" /tmp/logs/log-$t.txt | cut -c1-300
  timeout 60 $P mutants --campaign /tmp/mc-$t --json /tmp/logs/mutants-$t.json > /tmp/logs/mutants-$t.txt 2>&1; grep "^campaign\|of the 72\|time to kill" /tmp/logs/mutants-$t.txt
  cp /tmp/mc-$t/campaign-coverage.md /tmp/logs/cov-$t.md; grep "^| mbarrier\.\|^| address\|^| bulk" /tmp/logs/cov-$t.md | cut -c1-260; ls /tmp/reg-$t; }
camp g7-s7 --seed 7 --config mixed --trap-budget 0.25 --seconds 60
camp g7-s39 --seed 39 --config mixed --trap-budget 0.25 --seconds 150
tar -C /tmp -cJf $OUT/logs.tar.xz logs $(cd /tmp && ls -d reg-*)
