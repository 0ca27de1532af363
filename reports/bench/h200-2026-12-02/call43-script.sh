# call 43 (nvidia-h200): m = 6a7c2b2. `fuzz --config legal --seconds 30` with blocks of 16,384
# (the 16-core default's size, fixed) against 32,768, two pairs alternating; the rate after
# the first block ("sustained") is the measure.
mkdir -p /tmp/bin && xz -dc .dev/carry/m.xz > /tmp/bin/m && chmod +x /tmp/bin/m
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do for b in 16384 32768; do
  PTXCONFORM_CACHE=/tmp/c-$b-$r timeout 80 /tmp/bin/m fuzz --seed $((100+r)) --seconds 30 --batch $b --out /tmp/f-$b-$r --regressions /tmp/reg > $OUT/fuzz-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^done|^sustained" $OUT/fuzz-$b-$r.txt | cut -c1-160
done; done
