# call 40 (nvidia-h200): k = c46cc50. The legal row (20 s), three pairs alternating: mimalloc as
# shipped (transparent huge pages allowed) against MIMALLOC_ALLOW_THP=0.
uname -r; cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; nproc
mkdir -p /tmp/bin && xz -dc .dev/carry/k.xz > /tmp/bin/k && chmod +x /tmp/bin/k
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2 3; do for e in thp nothp; do
  if [ $e = nothp ]; then export MIMALLOC_ALLOW_THP=0; else unset MIMALLOC_ALLOW_THP; fi
  grep -E "AnonHugePages" /proc/meminfo
  timeout 100 /tmp/bin/k bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$e-$r.json > $OUT/bench-$e-$r.txt 2>&1
  echo "== $e $r"; grep -E "^all|CPU ms a program" $OUT/bench-$e-$r.txt | cut -c1-230
done; done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
