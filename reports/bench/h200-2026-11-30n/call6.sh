# call 6: the v10 probes twice (the first recorded and attributed)
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
cp .dev/carry/v10.yaml $OUT/v10.yaml
$P run --devices 0 --record --attribute all --out /tmp/v-1 $OUT/v10.yaml > $OUT/run1.txt 2>&1
cp .dev/carry/v10.yaml /tmp/v10.yaml; $P run --devices 0 --out /tmp/v-2 /tmp/v10.yaml > $OUT/run2.txt 2>&1
python3 - > $OUT/probes.txt <<'PY'
import json
for r in ("/tmp/v-1", "/tmp/v-2"):
    d = json.load(open(r + "/summary.json"))
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail", "")[:200])
PY
grep -o "attribution: [^]]*" $OUT/run1.txt | sort | uniq -c >> $OUT/probes.txt; cat $OUT/probes.txt
