# call 44 (nvidia-h200): m = 6a7c2b2. As call 43, three pairs, 32,768 first in each, 25 s.
mkdir -p /tmp/bin && xz -dc .dev/carry/m.xz > /tmp/bin/m && chmod +x /tmp/bin/m
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2 3; do for b in 32768 16384; do
  PTXCONFORM_CACHE=/tmp/c-$b-$r timeout 70 /tmp/bin/m fuzz --seed $((200+r)) --seconds 25 --batch $b --out /tmp/f-$b-$r --regressions /tmp/reg > $OUT/fuzz-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^done|^sustained" $OUT/fuzz-$b-$r.txt | cut -c1-110
done; done
