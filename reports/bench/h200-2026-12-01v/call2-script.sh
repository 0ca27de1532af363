# call 2 (nvidia-h200): 7e95849 with the tcgen05.cp change of ce319a6 (the binary says "7e95849+changes"), the
# all-families fuzz row twice; the reference on one thread against the development host's
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas
nproc; cat /proc/cpuinfo | grep -m1 "model name"; uptime
for k in 1 2; do
  timeout 200 /tmp/bin/new bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$k.json > $OUT/bench-$k.txt 2>&1
  echo "== $k"; grep -E "^all|by thread" $OUT/bench-$k.txt | cut -c1-220
done
timeout 120 /tmp/bin/new bench --reference-only --only shapes --cases 4096 --out $OUT/ref.json > $OUT/ref.txt 2>&1; tail -8 $OUT/ref.txt | cut -c1-150
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
