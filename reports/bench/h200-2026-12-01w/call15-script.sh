# call 15 (nvidia-h200): an experiment on c41c87b (not committed): the compile-ahead pool's
# threads (so ptxas processes at once, and modules a block) 16 (default), 8 and 4, the
# all-families fuzz row (20 s), alternating, twice each.
mkdir -p /tmp/bin && xz -dc .dev/carry/x.xz > /tmp/bin/x && chmod +x /tmp/bin/x
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do for n in 16 8 4; do
  PTXCONFORM_COMPILE_THREADS=$n timeout 100 /tmp/bin/x bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-c$n-$r.json > $OUT/bench-c$n-$r.txt 2>&1
  echo "== compile threads $n $r"; grep -E "^all" $OUT/bench-c$n-$r.txt | cut -c1-150
done; done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
