# call 36 (nvidia-h200): h = 146b787 plus an experiment switch (not committed):
# PTXCONFORM_EXP_NOVALIDATE=1 skips the emitter's own validation of each case (the campaign has
# validated every program already). The legal row (20 s), the switch off and on alternating,
# three times each; then a traced legal campaign (seed 7, 20 s) each way.
mkdir -p /tmp/bin && xz -dc .dev/carry/h.xz > /tmp/bin/h && chmod +x /tmp/bin/h
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2 3; do for m in on off; do
  if [ $m = on ]; then export PTXCONFORM_EXP_NOVALIDATE=1; else unset PTXCONFORM_EXP_NOVALIDATE; fi
  timeout 100 /tmp/bin/h bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$m-$r.json > $OUT/bench-$m-$r.txt 2>&1
  echo "== $m $r"; grep -E "^host|^all" $OUT/bench-$m-$r.txt | cut -c1-160
done; done
for m in off on; do
  if [ $m = on ]; then export PTXCONFORM_EXP_NOVALIDATE=1; else unset PTXCONFORM_EXP_NOVALIDATE; fi
  PTXCONFORM_TRACE=$OUT/trace-$m.json PTXCONFORM_CACHE=/tmp/c-$m timeout 60 /tmp/bin/h fuzz --config legal --seed 7 --seconds 20 --values-per-shape 80 --out /tmp/f-$m > $OUT/fuzz-$m.txt 2>&1
  echo "== trace $m"; grep -E "^done|^sustained" $OUT/fuzz-$m.txt | cut -c1-200
done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
