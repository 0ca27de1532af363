# call 8 (nvidia-h200): e085db3 (head), 80cf510 (b: growing blocks), 088b2fb (ab: + compile as
# soon as shapes are drawn), the all-families fuzz row (20 s) twice each, alternating.
mkdir -p /tmp/bin && for b in new b ab; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
cat /proc/cpuinfo | grep -m1 "model name"
for r in 1 2; do for b in new b ab; do
  timeout 100 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$b-$r.json > $OUT/bench-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^all" $OUT/bench-$b-$r.txt | cut -c1-150
done; done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
