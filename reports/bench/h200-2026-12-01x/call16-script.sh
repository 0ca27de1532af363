# call 16 (nvidia-h200): 35996e7. The host (THP, CPU topology, perf); ptxas alone on a set of
# fuzz kernels (one process, then 16 at once); the legal row with mimalloc's THP allowed
# (default) and not (MIMALLOC_ALLOW_THP=0), alternating, twice each.
mkdir -p /tmp/bin && xz -dc .dev/carry/h.xz > /tmp/bin/h && chmod +x /tmp/bin/h
export PTXAS=/usr/local/cuda/bin/ptxas
{ cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; lscpu; which perf; nvidia-smi -L; free -g; } > $OUT/host.txt 2>&1
cd .dev/carry/kern; fs=$(grep -l "target sm_90$" *.ptx | head -40); n=$(cat $fs | grep -c '\.entry')
s=$(date +%s.%N); for f in $fs; do $PTXAS -arch=sm_90 -O3 $f -o /tmp/x.cubin 2>/dev/null; done; e=$(date +%s.%N)
echo "ptxas serial: $n kernels $(echo "($e-$s)*1000/$n" | bc -l) ms/kernel" >> $OUT/host.txt
s=$(date +%s.%N); for j in $(seq 16); do (for f in $fs; do $PTXAS -arch=sm_90 -O3 $f -o /tmp/x$j.cubin 2>/dev/null; done) & done; wait; e=$(date +%s.%N)
echo "ptxas 16 at once: $((n*16)) kernels $(echo "($e-$s)*1000/$n" | bc -l) ms wall per 16 kernels" >> $OUT/host.txt
cd - >/dev/null
for r in 1 2; do for m in 1 0; do
  MIMALLOC_ALLOW_THP=$m timeout 100 /tmp/bin/h bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-thp$m-$r.json > $OUT/bench-thp$m-$r.txt 2>&1
  echo "== thp $m $r"; grep -E "^all" $OUT/bench-thp$m-$r.txt | cut -c1-150
done; done
cat $OUT/host.txt | grep -v '^Flags'
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
