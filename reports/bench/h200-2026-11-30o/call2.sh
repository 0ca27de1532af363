# call 2: campaigns with concurrent episodes (never run on a GPU before), mixed and legal
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  grep -E "^done|^finding|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -8 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 20 --config mixed --concurrent 64 --trap-budget 0.25 --seconds 150
run 21 --config legal --concurrent 64 --seconds 100
run 22 --config mixed --concurrent 160 --trap-budget 0.25 --seconds 150
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg20 reg21 reg22
