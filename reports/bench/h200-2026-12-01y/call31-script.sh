# call 31 (nvidia-h200): z = 4c96b83 (before), e = a9fd82d (the next block's first step made
# ready beside the block before; drawn blocks' shapes compiled one block at a time, in order).
# The legal row (20 s) alternating, three times each; then a traced legal campaign on e
# (seed 7, 20 s) beside call 30's of 1bf7509.
mkdir -p /tmp/bin && for b in z e; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2 3; do for b in e z; do
  timeout 100 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$b-$r.json > $OUT/bench-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^host|^all" $OUT/bench-$b-$r.txt | cut -c1-160
done; done
PTXCONFORM_TRACE=$OUT/trace-e7.json PTXCONFORM_CACHE=/tmp/c-7 timeout 60 /tmp/bin/e fuzz --config legal --seed 7 --seconds 20 --values-per-shape 80 --out /tmp/f7 > $OUT/fuzz-e7.txt 2>&1
grep -E "^done|^sustained|timing" $OUT/fuzz-e7.txt | cut -c1-300
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
