# call 14 (nvidia-h200): e7f1206 (the session's final code) on another machine start, the
# all-families fuzz row (20 s) three times.
mkdir -p /tmp/bin && xz -dc .dev/carry/f.xz > /tmp/bin/f && chmod +x /tmp/bin/f
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2 3; do
  timeout 100 /tmp/bin/f bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$r.json > $OUT/bench-$r.txt 2>&1
  echo "== $r"; grep -E "^all" $OUT/bench-$r.txt | cut -c1-150
done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
