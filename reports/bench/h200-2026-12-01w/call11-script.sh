# call 11 (nvidia-h200): c07d557 (t: trace, a step decoded while the next runs) against 63edfdd
# (d: + blocks drawn two ahead), the all-families fuzz row (20 s), alternating, twice each;
# then d traced once.
mkdir -p /tmp/bin && for b in t d; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do for b in t d; do
  timeout 100 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$b-$r.json > $OUT/bench-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^all" $OUT/bench-$b-$r.txt | cut -c1-150
done; done
PTXCONFORM_TRACE=$OUT/trace-d.json timeout 100 /tmp/bin/d bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-d-3.json > $OUT/bench-d-3.txt 2>&1
echo "== d 3 traced"; grep -E "^all" $OUT/bench-d-3.txt | cut -c1-150
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
