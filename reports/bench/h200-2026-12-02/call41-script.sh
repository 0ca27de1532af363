# call 41 (nvidia-h200): k = c46cc50 (HEAD's code). The legal row (20 s), two rounds of three
# settings: as shipped (16 threads a pool, background nice 10), RAYON_NUM_THREADS=24 (every pool
# 24 threads), PTXCONFORM_BACKGROUND_NICE=4.
mkdir -p /tmp/bin && xz -dc .dev/carry/k.xz > /tmp/bin/k && chmod +x /tmp/bin/k
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do for e in base t24 n4; do
  unset RAYON_NUM_THREADS PTXCONFORM_BACKGROUND_NICE
  case $e in t24) export RAYON_NUM_THREADS=24;; n4) export PTXCONFORM_BACKGROUND_NICE=4;; esac
  timeout 100 /tmp/bin/k bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$e-$r.json > $OUT/bench-$e-$r.txt 2>&1
  echo "== $e $r"; grep -E "^all|CPU ms a program" $OUT/bench-$e-$r.txt | cut -c1-200
done; done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
