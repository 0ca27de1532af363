# call 6 (2026-11-30q): the open seed-40 finding narrowed: six variants, each twice (the first recorded)
mkdir -p /tmp/bin && xz -dc .dev/carry/mut7.xz > /tmp/bin/m7 && chmod +x /tmp/bin/m7
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/m7
cp .dev/carry/narrow40.yaml $OUT/narrow40.yaml
timeout 120 $P run --devices 0 --record --attribute none --out /tmp/n1 $OUT/narrow40.yaml > $OUT/run1.txt 2>&1
cp .dev/carry/narrow40.yaml /tmp/n.yaml; timeout 120 $P run --devices 0 --out /tmp/n2 /tmp/n.yaml > $OUT/run2.txt 2>&1
python3 - <<'PY' | tee $OUT/narrow.txt
import json
for r in ("/tmp/n1", "/tmp/n2"):
    for x in json.load(open(r + "/summary.json"))["results"]: print(r, x["case"], x["verdict"], x.get("detail", "")[:160])
PY
