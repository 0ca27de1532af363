# call 37 (nvidia-h200): i = 81a0172 (spans for the phases of a step's preparation). A traced
# legal campaign (seed 7, 20 s), twice.
mkdir -p /tmp/bin && xz -dc .dev/carry/i.xz > /tmp/bin/i && chmod +x /tmp/bin/i
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do
  PTXCONFORM_TRACE=$OUT/trace-i$r.json PTXCONFORM_CACHE=/tmp/c-$r timeout 60 /tmp/bin/i fuzz --config legal --seed 7 --seconds 20 --values-per-shape 80 --out /tmp/f-$r > $OUT/fuzz-i$r.txt 2>&1
  echo "== trace $r"; grep -E "^done|^sustained" $OUT/fuzz-i$r.txt | cut -c1-200
done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
