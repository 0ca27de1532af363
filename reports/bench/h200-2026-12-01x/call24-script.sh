# call 24 (nvidia-h200): 834f8e4 (g: the host speed over rounds). The legal row (20 s)
# three times, each with its host line.
mkdir -p /tmp/bin && xz -dc .dev/carry/g.xz > /tmp/bin/g && chmod +x /tmp/bin/g
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2 3; do
  timeout 100 /tmp/bin/g bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-g-$r.json > $OUT/bench-g-$r.txt 2>&1
  echo "== $r"; grep -E "^host|^all" $OUT/bench-g-$r.txt | cut -c1-190
done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
