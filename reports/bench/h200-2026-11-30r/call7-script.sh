# call 7 (nvidia-h200): 6ec7b13: mixed campaigns on the families around H32 (cp.async and
# mbarrier, then with bulk copies, concurrent)
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  cp -r /tmp/ms$s/divergences /tmp/logs/div$s 2>/dev/null
  grep -E "^done|^finding|^NEW|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -14 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 46 --config mixed --families cp_async,mbarrier --trap-budget 0.25 --seconds 100
run 47 --config mixed --families cp_async,mbarrier,bulk_copy --concurrent 64 --trap-budget 0.25 --seconds 100
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg46 reg47
