# call 25 (nvidia-h200): c99a5b9 (z: the session's final code). The legal row (20 s) twice, then
# every fuzz mix (10 s) and the planted-trap row, each bench with its host line.
mkdir -p /tmp/bin && xz -dc .dev/carry/z.xz > /tmp/bin/z && chmod +x /tmp/bin/z
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do
  timeout 100 /tmp/bin/z bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-z-$r.json > $OUT/bench-z-$r.txt 2>&1
  echo "== $r"; grep -E "^host|^all" $OUT/bench-z-$r.txt | cut -c1-190
done
timeout 200 /tmp/bin/z bench --only fuzz --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1
grep -E "^host|^[a-z].* pass" $OUT/bench-fuzz.txt | cut -c1-190
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
