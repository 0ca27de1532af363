# call 9 (nvidia-h200): e085db3 (new), 5ffe31a (s: first blocks small), 456ad9a (c: + a step
# decoded and judged while the next runs), the all-families fuzz row (20 s) twice each,
# alternating; CPU topology.
mkdir -p /tmp/bin && for b in new s c; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
cat /proc/cpuinfo | grep -m1 "model name"; lscpu | grep -E "^(Thread|Core|Socket|CPU\(s\))"
for r in 1 2; do for b in new s c; do
  timeout 100 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$b-$r.json > $OUT/bench-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^all" $OUT/bench-$b-$r.txt | cut -c1-150
done; done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
