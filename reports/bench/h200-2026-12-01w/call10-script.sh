# call 10 (nvidia-h200): c07d557 (t: traced), the all-families fuzz row (20 s) with
# PTXCONFORM_TRACE and CPU sampled every 0.1 s; then once with the background stages not niced.
mkdir -p /tmp/bin && for b in t; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
sample() { while true; do echo "$(date +%s.%N) $(head -1 /proc/stat)"; sleep 0.1; done; }
for r in 1 2; do
  sample > $OUT/stat-$r.txt & S=$!
  PTXCONFORM_TRACE=$OUT/trace-$r.json timeout 100 /tmp/bin/t bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$r.json > $OUT/bench-$r.txt 2>&1
  kill $S; echo "== $r"; grep -E "^all" $OUT/bench-$r.txt | cut -c1-150
done
PTXCONFORM_BACKGROUND_NICE=0 timeout 100 /tmp/bin/t bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-nice0.json > $OUT/bench-nice0.txt 2>&1
echo "== nice0"; grep -E "^all" $OUT/bench-nice0.txt | cut -c1-150
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
