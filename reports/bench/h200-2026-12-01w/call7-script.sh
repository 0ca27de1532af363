# call 7 (nvidia-h200): block size at the campaign level (fuzz --batch 16384/32768/65536, 20 s,
# all families, legal), with CPU idle and GPU utilisation sampled every 0.1 s; bench row once.
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas
cat /proc/cpuinfo | grep -m1 "model name"
sample() { while true; do echo "$(date +%s.%N) $(head -1 /proc/stat)"; sleep 0.1; done; }
for b in 16384 32768 65536; do
  sample > $OUT/stat-$b.txt & S=$!
  nvidia-smi --query-gpu=timestamp,utilization.gpu --format=csv,noheader -lms 100 > $OUT/gpu-$b.txt 2>&1 & G=$!
  timeout 100 /tmp/bin/new fuzz --seconds 20 --batch $b --seed 5 --out /tmp/f-$b --regressions /tmp/r-$b > $OUT/fuzz-$b.txt 2>&1
  kill $S $G
  echo "== $b"; tail -5 $OUT/fuzz-$b.txt | cut -c1-200
done
timeout 100 /tmp/bin/new bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-1.json > $OUT/bench-1.txt 2>&1
grep -E "^all" $OUT/bench-1.txt | cut -c1-150
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
