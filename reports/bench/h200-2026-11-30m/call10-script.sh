# call 10: the mutants campaign (seed 7, mixed, trap budget 0.25, 60 s) at K = 80 and K = 64, d7a877b (A-TX-RANGE-HW), each scored
# .dev/m/mut.xz: the stripped release build with --features mutants of the commit named
mkdir -p /tmp/bin && xz -dc .dev/m/mut.xz > /tmp/bin/mut && chmod +x /tmp/bin/mut
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/mut
for k in 80 64; do mkdir -p $OUT/reg$k
  PTXCONFORM_CACHE=/tmp/c-$k $P fuzz --mutants --seed 7 --config mixed --trap-budget 0.25 --seconds 60 --values-per-shape $k --out /tmp/mc$k --regressions $OUT/reg$k > $OUT/log$k.txt 2>&1
  echo "K=$k"; grep -E "^done|^finding" $OUT/log$k.txt | cut -c1-250
  $P mutants --campaign /tmp/mc$k --json $OUT/mutants$k.json > $OUT/mutants$k.txt 2>&1; tail -6 $OUT/mutants$k.txt
done
