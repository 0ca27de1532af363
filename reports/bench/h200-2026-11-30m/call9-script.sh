# call 9: a tx-count of exactly 2^20 against 2^20+1, with and without an operation after; twice
# .dev/m/probe/*.yaml: the programs of cases/probes/fuzz-mispredicted-v6.yaml and tx-range.yaml before their runs were recorded; .dev/m/mut.xz: the stripped release build with --features mutants
mkdir -p /tmp/bin && xz -dc .dev/m/mut.xz > /tmp/bin/mut && chmod +x /tmp/bin/mut
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/mut
cp .dev/m/probe/v6d.yaml $OUT/v6d.yaml
$P run --devices 0 --record --attribute all --out /tmp/r1 $OUT/v6d.yaml > $OUT/run1.txt 2>&1
cp .dev/m/probe/v6d.yaml /tmp/v6d.yaml; $P run --devices 0 --out /tmp/r2 /tmp/v6d.yaml > $OUT/run2.txt 2>&1
python3 - <<'PY'
import json
for r in ("/tmp/r1","/tmp/r2"):
    d=json.load(open(r+"/summary.json"))
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail","")[:200])
PY
grep -o "attribution: [^]]*" $OUT/run1.txt | sort | uniq -c
