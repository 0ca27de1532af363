# call 1 (nvidia-h200): H33 probes (cases/probes/bulk-dst-other-cta.yaml before its recordings), twice each with --record
# H33 probes: which mbarrier a .shared::cta bulk copy into another CTA signals
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
for k in 1 2; do
  cp .dev/carry/h33b.yaml /tmp/h33b-$k.yaml
  timeout 200 $P run -q --record --devices 0 --out /tmp/o-$k /tmp/h33b-$k.yaml > /tmp/log-$k 2>&1; echo "rc $?"; tail -3 /tmp/log-$k
  python3 -c "
import json
for r in json.load(open('/tmp/o-$k/summary.json'))['results']:
    print('run $k', r['case'], r['verdict'], (r.get('detail') or '')[:200])"
  cp /tmp/h33b-$k.yaml $OUT/
done 2>&1 | tee $OUT/h33b.txt
