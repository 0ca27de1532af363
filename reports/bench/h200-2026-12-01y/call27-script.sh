# call 27 (nvidia-h200): z = 4c96b83 (before), c = dc73177 (a block's first step made ready
# beside the block before). The legal row (20 s) alternating, three times each; c: every fuzz
# mix (10 s) and the planted-trap row, a mixed campaign (seed 67, 45 s), and a traced legal
# campaign (seed 5, 20 s) with the host's busy CPUs sampled every 50 ms.
mkdir -p /tmp/bin /tmp/logs && for b in z c; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2 3; do for b in c z; do
  timeout 100 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$b-$r.json > $OUT/bench-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^host|^all" $OUT/bench-$b-$r.txt | cut -c1-160
done; done
P=/tmp/bin/c
timeout 200 $P bench --only fuzz --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1
grep -E "^[a-z].* pass" $OUT/bench-fuzz.txt | cut -c1-140
mkdir -p /tmp/reg67
PTXCONFORM_CACHE=/tmp/c-67 timeout 100 $P fuzz --seed 67 --config mixed --trap-budget 0.25 --seconds 45 --out /tmp/ms67 --regressions /tmp/reg67 > /tmp/logs/camp67.txt 2>&1
grep -E "^done|^finding|^NEW|^predicted|^sustained|^coverage|^wall|^divergence" /tmp/logs/camp67.txt | cut -c1-400 | tail -12 | tee $OUT/camp67.txt
ls /tmp/reg67
cp /tmp/logs/camp67.txt $OUT/camp67-full.txt
python3 .dev/carry/sampler.py $OUT/busy.txt & S=$!
date +%s.%N > $OUT/start.txt
PTXCONFORM_TRACE=$OUT/trace-c.json PTXCONFORM_CACHE=/tmp/c-5 timeout 60 $P fuzz --config legal --seed 5 --seconds 20 --values-per-shape 80 --out /tmp/f5 > $OUT/fuzz-c.txt 2>&1
kill $S; tail -4 $OUT/fuzz-c.txt
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
