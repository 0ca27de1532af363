# call 32 (nvidia-h200): e = a9fd82d, z = 4c96b83. The legal row (20 s) alternating, twice each;
# e: every fuzz mix (10 s) and the planted-trap row; a mixed campaign (seed 67, 45 s).
mkdir -p /tmp/bin && for b in z e; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 4 5; do for b in z e; do
  timeout 100 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$b-$r.json > $OUT/bench-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^host|^all" $OUT/bench-$b-$r.txt | cut -c1-160
done; done
timeout 200 /tmp/bin/e bench --only fuzz --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1
grep -E "^[a-z].* pass" $OUT/bench-fuzz.txt | cut -c1-140
mkdir -p /tmp/reg
PTXCONFORM_CACHE=/tmp/c-67 timeout 100 /tmp/bin/e fuzz --seed 67 --config mixed --trap-budget 0.25 --seconds 45 --out /tmp/ms --regressions /tmp/reg > $OUT/camp67-e.txt 2>&1
grep -E "^done|^predicted" $OUT/camp67-e.txt | cut -c1-330; ls /tmp/reg
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
