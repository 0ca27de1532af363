# A/B: compile a block's shapes before its checks (new) against after (base), 30 s campaigns
mkdir -p /tmp/bin && for b in base new; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
i=0; for b in base new base new; do i=$((i+1))
  PTXCONFORM_CACHE=/tmp/c-$i /tmp/bin/$b fuzz --config legal --seed $(( (i-1)/2 )) --seconds 30 --out /tmp/f-$i > $OUT/fz-$i-$b.txt 2>&1
  echo "$i $b $(grep -E '^done' $OUT/fz-$i-$b.txt | cut -c1-110)"; grep -E '^sustained' $OUT/fz-$i-$b.txt | cut -c1-100
  grep -E '^wall' $OUT/fz-$i-$b.txt; grep timing $OUT/fz-$i-$b.txt | grep -o "reference [^)]*ahead[^)]*)"
done
