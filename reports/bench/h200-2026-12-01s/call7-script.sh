# call 7 (nvidia-h200): H33 probes: the two minimized campaign programs (recordings still in them:
# judged by replay, not run) and four isolated copies into another CTA, each file run twice
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
for f in h33.yaml call6-s51-regress.8e5118cf88a94926.yaml call6-s52-regress.8e5118cf88a94926.yaml; do
 for k in 1 2; do
  $P run -q --devices 0 --out /tmp/r-$k-$f .dev/carry/$f > /dev/null 2>&1
  python3 -c "
import json,sys
for r in json.load(open('/tmp/r-$k-$f/summary.json'))['results']:
    print('run $k', r['case'], r['verdict'], (r.get('detail') or '')[:160])"
 done
done | tee $OUT/h33-probes.txt
