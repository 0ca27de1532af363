# call 2: bench fuzz rows at the new default K = 80 (9457ab8); all-families 30 s rows at 80 / 64 / 80; mixed with a trap budget
# .dev/carry/new.xz: the stripped release build of the commit named
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
PTXCONFORM_CACHE=/tmp/c-b0 $P bench --only fuzz --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1; grep -A12 "^fuzz mix" $OUT/bench-fuzz.txt | cut -c1-230
i=0; for k in 80 64 80; do i=$((i+1))
  PTXCONFORM_CACHE=/tmp/c-$i $P bench --only fuzz --fuzz-mixes all --fuzz-seconds 30 --fuzz-values-per-shape $k --out $OUT/bench-all-$i-k$k.json > $OUT/bench-all-$i-k$k.txt 2>&1
  echo "$i K=$k"; grep -A2 "^fuzz mix" $OUT/bench-all-$i-k$k.txt | tail -2 | cut -c1-230
done
PTXCONFORM_CACHE=/tmp/c-m $P fuzz --config mixed --trap-budget 0.25 --seed 0 --seconds 30 --out /tmp/fm > $OUT/fz-mixed.txt 2>&1; grep -E "^done|^sustained|^predicted|^wall" $OUT/fz-mixed.txt | cut -c1-200
