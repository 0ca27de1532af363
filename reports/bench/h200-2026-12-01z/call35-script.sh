# call 35 (nvidia-h200-x2, if lent): f = 7d72eb4. The devices row (one GPU against two, the same
# threads), K = 80, 20 s rows, twice.
mkdir -p /tmp/bin && xz -dc .dev/carry/f.xz > /tmp/bin/f && chmod +x /tmp/bin/f
export PTXAS=/usr/local/cuda/bin/ptxas
nproc; nvidia-smi -L
for r in 1 2; do
  timeout 200 /tmp/bin/f bench --only devices --devices 0,1 --fuzz-seconds 20 --out $OUT/devices-f-$r.json > $OUT/devices-f-$r.txt 2>&1
  echo "== f $r"; grep -vE "^\s*$" $OUT/devices-f-$r.txt | tail -8 | cut -c1-200
done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
