# call 34 (nvidia-h200): f = 7d72eb4 (last session's code), g = 5cf4655 (compiles ahead on a
# first-come queue of ptxas threads, modules handed over one by one, two blocks at once).
# The legal row (20 s) alternating, three times each; then a traced legal campaign on g
# (seed 7, 20 s) beside call 31's.
mkdir -p /tmp/bin && for b in f g; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
nproc; lscpu | grep -E "Thread|Core|Socket|Model name"
for r in 1 2 3; do for b in g f; do
  timeout 100 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$b-$r.json > $OUT/bench-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^host|^all" $OUT/bench-$b-$r.txt | cut -c1-160
done; done
PTXCONFORM_TRACE=$OUT/trace-g7.json PTXCONFORM_CACHE=/tmp/c-7 timeout 60 /tmp/bin/g fuzz --config legal --seed 7 --seconds 20 --values-per-shape 80 --out /tmp/f7 > $OUT/fuzz-g7.txt 2>&1
grep -E "^done|^sustained|timing" $OUT/fuzz-g7.txt | cut -c1-300
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
