# call 1 (nvidia-h200): tensor-load probes of H33 and H33 cut apart, twice each with --record; then bench --only fuzz
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
for f in tensor-dst-other-cta h33-cut; do
for k in 1 2; do
  cp .dev/carry/$f.yaml /tmp/$f-$k.yaml
  timeout 200 $P run -q --record --devices 0 --out /tmp/o-$f-$k /tmp/$f-$k.yaml > /tmp/log-$f-$k 2>&1; echo "rc $?"; tail -3 /tmp/log-$f-$k
  python3 -c "
import json
for r in json.load(open('/tmp/o-$f-$k/summary.json'))['results']:
    print('run $k', r['case'], r['verdict'], (r.get('detail') or '')[:300])"
  cp /tmp/$f-$k.yaml $OUT/
done
done 2>&1 | tee $OUT/probes.txt
timeout 300 $P bench --only fuzz --fuzz-seconds 10 --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1; echo "bench rc $?"; tail -20 $OUT/bench-fuzz.txt
