# compile-ahead priority: nice 10 (as the generation) against 5 and 0, 30 s campaigns
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas; id -u
i=0; for c in 10 5 0 10 5 0; do i=$((i+1))
  PTXCONFORM_COMPILE_NICE=$c PTXCONFORM_CACHE=/tmp/c-$i /tmp/bin/new fuzz --config legal --seed $(( (i-1)/3 )) --seconds 30 --out /tmp/f-$i > $OUT/fz-$i-c$c.txt 2>&1
  echo "$i c$c $(grep -E '^done' $OUT/fz-$i-c$c.txt | cut -c1-110)"; grep -E '^sustained' $OUT/fz-$i-c$c.txt | cut -c1-100
  grep -E '^wall' $OUT/fz-$i-c$c.txt; grep timing $OUT/fz-$i-c$c.txt | grep -o "reference [^)]*ahead[^)]*)"
done
