# call 2 (nvidia-h200-x2): 2756b1b, is the 32-vCPU host 16 cores with two threads each, and what a lane waits on
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
lscpu > $OUT/lscpu.txt; grep -E "^(CPU\(s\)|Thread|Core|Socket|Model name|NUMA)" $OUT/lscpu.txt
which perf; cat /sys/kernel/mm/transparent_hugepage/enabled
for t in 8 16 32; do RAYON_NUM_THREADS=$t $P bench --reference-only --only shapes --out $OUT/ref-t$t.json > $OUT/ref-t$t.txt 2>&1; echo "threads $t"; grep -E "^(cp|bulk|tensor|reduce|mbar)" $OUT/ref-t$t.txt | cut -c1-90; done
for d in 0 0,1; do
  vmstat 1 > $OUT/vmstat-$d.txt & V=$!
  PTXCONFORM_CACHE=/tmp/c-$d /usr/bin/time -v $P fuzz --config legal --seconds 30 --seed 3 --devices $d --values-per-shape 256 --out /tmp/f-$d > $OUT/fuzz-$d.txt 2>&1
  kill $V
  echo "== devices $d"; grep -E "done|sustained|hardware|Elapsed|User time|System time|context switches|Maximum resident" $OUT/fuzz-$d.txt
  awk 'NR>2{us+=$13;sy+=$14;id+=$15;n++}END{print "vmstat us",us/n,"sy",sy/n,"id",id/n}' $OUT/vmstat-$d.txt
done
