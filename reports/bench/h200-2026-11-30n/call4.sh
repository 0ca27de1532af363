# call 4: the v8/v9 probes twice (the first recorded and attributed); a 150 s mixed campaign on seed 14 with the model of this tree
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs /tmp/reg14
cp .dev/carry/v8.yaml $OUT/v8.yaml
$P run --devices 0 --record --attribute all --out /tmp/v8-1 $OUT/v8.yaml > /tmp/logs/v8-run1.txt 2>&1
cp .dev/carry/v8.yaml /tmp/v8.yaml; $P run --devices 0 --out /tmp/v8-2 /tmp/v8.yaml > /tmp/logs/v8-run2.txt 2>&1
python3 - > $OUT/probes.txt <<'PY'
import json
for r in ("/tmp/v8-1", "/tmp/v8-2"):
    d = json.load(open(r + "/summary.json"))
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail", "")[:260])
PY
grep -o "attribution: [^]]*" /tmp/logs/v8-run1.txt | sort | uniq -c >> $OUT/probes.txt; cat $OUT/probes.txt
PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed 14 --config mixed --trap-budget 0.25 --seconds 150 --out /tmp/ms --regressions /tmp/reg14 > /tmp/logs/camp14.txt 2>&1
grep -E "^done|^finding|^predicted|^sustained" /tmp/logs/camp14.txt | cut -c1-300 | tail -8; ls /tmp/reg14
tar -C /tmp -cJf $OUT/reg.tar.xz reg14; tar -C /tmp -cJf $OUT/logs.tar.xz logs
