# call 21 (nvidia-h200): a211216 (m). The two mbarrier complete_tx race cases whose verdicts
# differed from baseline h200-2026-11-30-59a14fa in call 20: ten runs each way, small pages
# (default) and transparent huge pages allowed (MIMALLOC_ALLOW_THP=1, as before a211216),
# alternating.
mkdir -p /tmp/bin && xz -dc .dev/carry/m.xz > /tmp/bin/m && chmod +x /tmp/bin/m
export PTXAS=/usr/local/cuda/bin/ptxas
for r in $(seq 10); do for t in small thp; do
  if [ $t = thp ]; then export MIMALLOC_ALLOW_THP=1; else unset MIMALLOC_ALLOW_THP; fi
  rm -rf /tmp/o; timeout 60 /tmp/bin/m run -q --devices 0 --out /tmp/o cases/ub/tx_race.yaml > /dev/null 2>&1
  python3 -c "
import json
s=json.load(open('/tmp/o/summary.json'))
print('$t $r', ' '.join(r['case'].split('.')[-1]+'='+r['verdict'] for r in s['results']))" | tee -a $OUT/race.txt
done; done
