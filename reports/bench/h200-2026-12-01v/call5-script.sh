# call 5 (nvidia-h200): acf84de (last session's HEAD) against 53a8388, all-families fuzz row,
# 20 s, alternating on one machine start
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && xz -dc .dev/carry/head.xz > /tmp/bin/head && chmod +x /tmp/bin/*
export PTXAS=/usr/local/cuda/bin/ptxas
cat /proc/cpuinfo | grep -m1 "model name"
for r in new-1 head-1 new-2 head-2; do
  b=${r%-*}
  timeout 200 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$r.json > $OUT/bench-$r.txt 2>&1
  echo "== $r"; grep -E "^all " $OUT/bench-$r.txt | head -1 | cut -c1-150
done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
