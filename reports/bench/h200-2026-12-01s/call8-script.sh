# call 8 (nvidia-h200): H33: the two minimized campaign programs live (recordings stripped), twice
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
for f in call6-s51-regress.8e5118cf88a94926.yaml call6-s52-regress.8e5118cf88a94926.yaml; do
 for k in 1 2; do
  $P run -q --devices 0 --out /tmp/s-$k-$f .dev/carry/$f > /tmp/log-$k 2>&1; tail -3 /tmp/log-$k
  python3 -c "
import json,sys
for r in json.load(open('/tmp/s-$k-$f/summary.json'))['results']:
    print('run $k', r['case'], r['verdict'], (r.get('detail') or '')[:160])"
 done
done | tee $OUT/h33-probes.txt
