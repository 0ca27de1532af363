# call 4 (nvidia-h200): longer generator-10 campaigns looking for divergences (bfaeb14):
# seed 63 every family with concurrent episodes (N 96), seed 64 tensor, bulk copies and mbarriers
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  grep -E "^done|^finding|^NEW|^predicted|^sustained|^coverage|^wall|^divergence|signature" /tmp/logs/camp$s.txt | cut -c1-600 | tail -24 | tee $OUT/camp$s.txt
  cp /tmp/ms$s/campaign-coverage.md $OUT/cov$s.md
  ls /tmp/reg$s; cp -r /tmp/reg$s $OUT/ 2>/dev/null; cp -r /tmp/ms$s/divergences $OUT/div$s 2>/dev/null; }
run 63 --config mixed --concurrent 96 --trap-budget 0.25 --seconds 150
run 64 --config mixed --families tensor,bulk_copy,mbarrier --trap-budget 0.25 --seconds 150
