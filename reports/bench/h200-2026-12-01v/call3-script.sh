# call 3 (nvidia-h200): HEAD of the last session (acf84de) against this session's binary
# (7e95849 + the tcgen05.cp change), alternating on one machine start, all-families fuzz row
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && xz -dc .dev/carry/head.xz > /tmp/bin/head && chmod +x /tmp/bin/*
export PTXAS=/usr/local/cuda/bin/ptxas
cat /proc/cpuinfo | grep -m1 "model name"
for r in head-1 new-1 head-2 new-2; do
  b=${r%-*}
  timeout 200 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$r.json > $OUT/bench-$r.txt 2>&1
  echo "== $r"; grep -E "^all " $OUT/bench-$r.txt | cut -c1-150; grep -A1 "^all " $OUT/bench-$r.txt | grep "by thread" | head -1 | cut -c1-200
done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
