# call 6: probes of the mispredicted trap of call 5 (regress.8e5118cf88a94926 of 2026-11-30): prefixes and two variants, twice
# .dev/m/probe/*.yaml: the programs of cases/probes/fuzz-mispredicted-v6.yaml and tx-range.yaml before their runs were recorded; .dev/m/mut.xz: the stripped release build with --features mutants
mkdir -p /tmp/bin && xz -dc .dev/m/mut.xz > /tmp/bin/mut && chmod +x /tmp/bin/mut
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/mut
cp .dev/m/probe/v6.yaml $OUT/v6.yaml
$P run --devices 0 --record --attribute all --out /tmp/r1 $OUT/v6.yaml > $OUT/run1.txt 2>&1; grep -E "^(PASS|FAIL|ok|trap|  )|mispred|culprit" $OUT/run1.txt | cut -c1-260 | head -40
cp .dev/m/probe/v6.yaml /tmp/v6b.yaml; $P run --devices 0 --out /tmp/r2 /tmp/v6b.yaml > $OUT/run2.txt 2>&1
python3 - <<'PY'
import json
for r in ("/tmp/r1","/tmp/r2"):
    d=json.load(open(r+"/summary.json"))
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail","")[:160])
PY
