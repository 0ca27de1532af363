# call 38 (nvidia-h200): j = 150ae16 plus an experiment switch (not committed):
# PTXCONFORM_EXP_STEP=N sets the pipeline's step (one lane; default 2,048). The legal row (20 s)
# at 2,048, 4,096 and 8,192, alternating, twice each.
mkdir -p /tmp/bin && xz -dc .dev/carry/j.xz > /tmp/bin/j && chmod +x /tmp/bin/j
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do for n in 4096 2048 8192; do
  PTXCONFORM_EXP_STEP=$n timeout 100 /tmp/bin/j bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$n-$r.json > $OUT/bench-$n-$r.txt 2>&1
  echo "== $n $r"; grep -E "^host|^all|CPU ms" $OUT/bench-$n-$r.txt | cut -c1-200
done; done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
# Then, on the same warm machine (rounds 3 and 4; the 8,192 rows' files did not come back):
# for r in 3 4; do for n in 8192 2048 16384; do PTXCONFORM_EXP_STEP=$n timeout 100 /tmp/bin/j bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$n-$r.json > $OUT/bench-$n-$r.txt 2>&1; done; done
# 8192 3: all 17436 (218 shapes/s, 86 %, 0.378 + 0.409); 8192 4: all 20436 (256, 87 %, 0.325 + 0.356)
