# call 26 (nvidia-h200): z = 4c96b83 (before), c = dc73177 (a block's first step made ready
# beside the block before). The legal row (20 s) alternating, three times each; then one
# 20 s legal campaign of each under PTXCONFORM_TRACE.
mkdir -p /tmp/bin && for b in z c; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
nproc; grep -m1 "model name" /proc/cpuinfo
for r in 1 2 3; do for b in z c; do
  timeout 100 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$b-$r.json > $OUT/bench-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^host|^all" $OUT/bench-$b-$r.txt | cut -c1-160
done; done
for b in z c; do
  PTXCONFORM_TRACE=$OUT/trace-$b.json timeout 60 /tmp/bin/$b fuzz --config legal --seconds 20 --values-per-shape 80 --out /tmp/f-$b > $OUT/fuzz-$b.txt 2>&1
  tail -3 $OUT/fuzz-$b.txt
done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
