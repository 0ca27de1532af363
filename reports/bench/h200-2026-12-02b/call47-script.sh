# call 47 (nvidia-h200): n = 831fdc1. What moves the legal row within one start: the same row
# (20 s, round 1's programs) four times while /proc/stat (user, system, idle, iowait, steal) and
# the CPUs' MHz are sampled every 250 ms; each row's start and end are logged.
mkdir -p /tmp/bin && xz -dc .dev/carry/n.xz > /tmp/bin/n && chmod +x /tmp/bin/n
export PTXAS=/usr/local/cuda/bin/ptxas
grep -m1 "model name" /proc/cpuinfo; nproc; grep -c ^processor /proc/cpuinfo; lscpu | grep -E "Thread|Core|Socket|MHz|Hypervisor|NUMA node0" 
python3 .dev/carry/sampler3.py $OUT/stat.txt & S=$!
for i in 1 2 3 4; do
  echo "row $i start $(date +%s.%N)" >> $OUT/rows.txt
  timeout 120 /tmp/bin/n bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out /tmp/bench-$i.json > /tmp/bench-$i.txt 2>&1
  echo "row $i end $(date +%s.%N)" >> $OUT/rows.txt
  grep -E "^host|^all|by thread" /tmp/bench-$i.txt | sed "s/^/n$i /" | cut -c1-230 | tee -a $OUT/rows.txt
done
kill $S
cat /tmp/bench-*.txt > $OUT/benches.txt
