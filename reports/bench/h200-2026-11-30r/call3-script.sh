# call 3 (nvidia-h200): generator 8 (working tree on 2756b1b), mixed campaigns on new seeds
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  cp -r /tmp/ms$s/divergences /tmp/logs/div$s 2>/dev/null
  grep -E "^done|^finding|^NEW|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -14 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 41 --config mixed --trap-budget 0.25 --seconds 75
run 42 --config mixed --concurrent 64 --trap-budget 0.25 --seconds 75
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg41 reg42
