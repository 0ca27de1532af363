# call 6 (nvidia-h200): the final binary (d46f7f9, tensor.dst_not_executing_cta): seed 65,
# tensor loads only, 60 s, and seed 66, every family, 45 s (mixed, trap budget 0.25)
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  grep -E "^done|^finding|^NEW|^predicted|^sustained|^coverage|^wall|^divergence|signature" /tmp/logs/camp$s.txt | cut -c1-600 | tail -24 | tee $OUT/camp$s.txt
  grep -E "dst_not_executing_cta|A-BULK-DST-OTHER-CTA-HW" /tmp/ms$s/campaign-coverage.md | tee -a $OUT/camp$s.txt
  cp -r /tmp/reg$s $OUT/ 2>/dev/null; true; }
run 65 --config mixed --families tensor --trap-budget 0.25 --seconds 60
run 66 --config mixed --trap-budget 0.25 --seconds 45
