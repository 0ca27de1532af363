# call 2: the second seed-11 trap's variants and the data-race run-on probes, twice each (the first recorded and attributed); then a 150 s mixed campaign on seed 12 with the new model
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
for f in v7b race-probes; do
  cp .dev/carry/$f.yaml $OUT/$f.yaml
  $P run --devices 0 --record --attribute all --out /tmp/$f-1 $OUT/$f.yaml > /tmp/logs/$f-run1.txt 2>&1
  cp .dev/carry/$f.yaml /tmp/$f.yaml; $P run --devices 0 --out /tmp/$f-2 /tmp/$f.yaml > /tmp/logs/$f-run2.txt 2>&1
  python3 - $f >> $OUT/probes.txt <<'PY'
import json, sys
f = sys.argv[1]
for r in (f"/tmp/{f}-1", f"/tmp/{f}-2"):
    d = json.load(open(r + "/summary.json"))
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail", "")[:260])
PY
  grep -o "attribution: [^]]*" /tmp/logs/$f-run1.txt | sort | uniq -c >> $OUT/probes.txt
done
cat $OUT/probes.txt
mkdir -p /tmp/reg
PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed 12 --config mixed --trap-budget 0.25 --seconds 150 --out /tmp/ms --regressions /tmp/reg > /tmp/logs/camp.txt 2>&1
grep -E "^done|^finding|^predicted|programs/s" /tmp/logs/camp.txt | cut -c1-300 | tail -20 > $OUT/camp.txt; cat $OUT/camp.txt; ls /tmp/reg
cp /tmp/ms/campaign.json /tmp/logs/ 2>/dev/null
tar -C /tmp -cJf $OUT/reg.tar.xz reg; tar -C /tmp -cJf $OUT/logs.tar.xz logs
