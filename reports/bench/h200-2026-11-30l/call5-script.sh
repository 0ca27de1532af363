# call 5: A/B base (3562b79) against new (9cf9428), 30 s campaigns; the bench's fuzz row; the corpus
mkdir -p /tmp/bin && for b in base new; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
i=0; for b in base new base new base new; do i=$((i+1))
  PTXCONFORM_CACHE=/tmp/c-$i /tmp/bin/$b fuzz --config legal --seed $(( (i-1)/2 )) --seconds 30 --out /tmp/f-$i > $OUT/fz-$i-$b.txt 2>&1
  echo "$i $b $(grep -E '^done' $OUT/fz-$i-$b.txt | cut -c1-110)"; grep -E '^sustained' $OUT/fz-$i-$b.txt | cut -c1-100
  grep -E '^wall' $OUT/fz-$i-$b.txt; grep timing $OUT/fz-$i-$b.txt | grep -o "reference [^)]*ahead[^)]*)"
done
PTXCONFORM_CACHE=/tmp/c-bench /tmp/bin/new bench --only fuzz --fuzz-mixes all --fuzz-seconds 60 --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1; grep -A3 "^fuzz mix" $OUT/bench-fuzz.txt
/tmp/bin/new run -q --devices 0 --out /tmp/r1 cases > /tmp/corpus.txt 2>&1; tail -3 /tmp/corpus.txt
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json
