# call 19 (nvidia-h200): a211216 (small pages) plus an uncommitted variable: the drawing pool's
# nice value above the compiling pool's (PTXCONFORM_DRAW_EXTRA_NICE: 0, the default, 5 and 9;
# ptxas stays at +10), the legal row alternating, twice each.
mkdir -p /tmp/bin && xz -dc .dev/carry/c.xz > /tmp/bin/c && chmod +x /tmp/bin/c
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do for n in 0 5 9; do
  PTXCONFORM_DRAW_EXTRA_NICE=$n timeout 100 /tmp/bin/c bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-n$n-$r.json > $OUT/bench-n$n-$r.txt 2>&1
  echo "== draw extra nice $n $r"; grep -E "^all" $OUT/bench-n$n-$r.txt | cut -c1-150
done; done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
