# call 1: the corpus live after d7a877b (A-TX-RANGE-HW), then the v7 variants and call 11's regressions, twice each
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/corpus.txt
( time $P run -q --devices 0 --out /tmp/r1 cases ) >> $OUT/corpus.txt 2>&1
tail -5 $OUT/corpus.txt
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json > $OUT/cmp.txt 2>&1; cat $OUT/cmp.txt | head -20
cp /tmp/r1/summary.json /tmp/corpus-summary.json; xz -T8 -c /tmp/r1/summary.json > $OUT/corpus-summary.json.xz
cp .dev/carry/next-probes-v7.yaml $OUT/v7.yaml
$P run --devices 0 --record --attribute all --out /tmp/p1 $OUT/v7.yaml > $OUT/v7run1.txt 2>&1
cp .dev/carry/next-probes-v7.yaml /tmp/v7.yaml; $P run --devices 0 --out /tmp/p2 /tmp/v7.yaml > $OUT/v7run2.txt 2>&1
for f in .dev/carry/call11-regress.*.yaml; do python3 - "$f" <<'PY'
import sys
t=open(sys.argv[1]).read(); i=t.find('\n  observed:')
open('/tmp/'+sys.argv[1].split('/')[-1],'w').write(t if i<0 else t[:i]+'\n')
PY
for i in 1 2; do $P run --devices 0 --attribute all --out /tmp/rr$i /tmp/$(basename $f) > /tmp/r.txt 2>&1; grep -o "attribution: [^]]*" /tmp/r.txt | head -2; python3 -c "
import json;d=json.load(open('/tmp/rr$i/summary.json'));[print('  ',x['case'],x['verdict'],x.get('detail','')[:300]) for x in d['results']]"; done; done > $OUT/reg.txt 2>&1
python3 - > $OUT/probes.txt <<'PY'
import json
for r in ("/tmp/p1","/tmp/p2"):
    d=json.load(open(r+"/summary.json"))
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail","")[:300])
PY
cat $OUT/probes.txt $OUT/reg.txt; grep -o "attribution: [^]]*" $OUT/v7run1.txt | sort | uniq -c
