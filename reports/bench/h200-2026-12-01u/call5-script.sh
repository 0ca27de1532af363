# call 5 (nvidia-h200): tensor.dst_not_executing_cta beyond 1D/2D tiles: an im2col load and a
# 128B-swizzled tile into another CTA, its destination waiting; twice each with --record
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
for f in tensor-dst-other-cta-2; do
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
