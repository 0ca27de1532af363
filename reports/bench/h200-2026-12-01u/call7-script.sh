# call 7 (nvidia-h200): the final binary (14428a6), issue 33's legal row again: all families,
# 30 s, twice on one machine start
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
for k in 1 2; do
  timeout 200 $P bench --only fuzz --fuzz-mixes all --fuzz-seconds 30 --out $OUT/bench-all-$k.json > $OUT/bench-all-$k.txt 2>&1
  grep -E "^all|by thread" $OUT/bench-all-$k.txt
done
