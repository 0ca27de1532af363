# call 39 (nvidia-h200): i = 81a0172 (a block's first part in steps of 2,048), k = c46cc50 (that
# part in one step). The legal row (20 s) alternating, twice each; then on k the tensor mix
# (10 s) and the planted-trap row, and a mixed campaign (seed 67, 45 s).
mkdir -p /tmp/bin && for b in i k; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do for b in k i; do
  timeout 100 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$b-$r.json > $OUT/bench-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^all" $OUT/bench-$b-$r.txt | cut -c1-170
done; done
timeout 200 /tmp/bin/k bench --only fuzz --fuzz-mixes tensor --fuzz-mixes trap --out $OUT/bench-mixes-k.json > $OUT/bench-mixes-k.txt 2>&1
grep -E "^[a-z_+ 0-9/]+ +[0-9]+ " $OUT/bench-mixes-k.txt | cut -c1-150
PTXCONFORM_CACHE=/tmp/c-67 timeout 100 /tmp/bin/k fuzz --seed 67 --config mixed --trap-budget 0.25 --seconds 45 --out /tmp/ms --regressions /tmp/reg > $OUT/camp67-k.txt 2>&1
grep -E "^done|^predicted" $OUT/camp67-k.txt | cut -c1-330; ls /tmp/reg 2>/dev/null
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
