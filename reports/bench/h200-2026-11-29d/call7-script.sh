source .dev/probe/setup.sh
F=cases/probes/fuzz-mispredicted-v5-which.yaml
$P run --devices 0 --record --out /tmp/rv $F > $OUT/which1.txt 2>&1; tail -4 $OUT/which1.txt | cut -c1-300
cp $F $OUT/which.yaml
$P run --devices 0 --out /tmp/rv2 $F cases/probes/fuzz-mispredicted-v5.yaml > $OUT/which2.txt 2>&1; tail -3 $OUT/which2.txt | cut -c1-300
python3 -c "
import json
for f in ('/tmp/rv/summary.json','/tmp/rv2/summary.json'):
  for r in json.load(open(f))['results']: print(f[5:8], r['case'], r['verdict'], (r.get('detail') or '')[:160])
"
