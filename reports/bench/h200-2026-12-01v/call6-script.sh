# call 6 (nvidia-h200): the final binary (a664e7a) on a fresh machine start: the all-families
# fuzz row three times, 20 s, no trap row (--fuzz-mixes all no longer runs it)
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas
cat /proc/cpuinfo | grep -m1 "model name"
for r in 1 2 3; do
  timeout 100 /tmp/bin/new bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$r.json > $OUT/bench-$r.txt 2>&1
  echo "== $r"; grep -E "^all|trap" $OUT/bench-$r.txt | cut -c1-150
done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
