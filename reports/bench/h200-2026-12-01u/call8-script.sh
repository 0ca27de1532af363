# call 8 (nvidia-h200): bench's fuzz rows on a cubin cache of their own (the change after
# 14428a6): the all-families row twice on one machine start; the second must compile as the first
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
for k in 1 2; do
  timeout 200 $P bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-all-$k.json > $OUT/bench-all-$k.txt 2>&1
  grep -E "^all|by thread" $OUT/bench-all-$k.txt
done
ls ~/.cache/ptxconform/cubin 2>/dev/null | wc -l
