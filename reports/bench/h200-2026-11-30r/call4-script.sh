# call 4 (nvidia-h200): the seed-41 finding (found program, stripped of its recording) and its
# variants (v16), each run twice, the first recorded and attributed
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
for f in found41 v16; do
  cp .dev/carry/$f.yaml $OUT/$f.yaml
  timeout 150 $P run --devices 0 --record --attribute all --out /tmp/$f-1 $OUT/$f.yaml > /tmp/logs/$f-run1.txt 2>&1
  cp .dev/carry/$f.yaml /tmp/$f.yaml; timeout 150 $P run --devices 0 --out /tmp/$f-2 /tmp/$f.yaml > /tmp/logs/$f-run2.txt 2>&1
done
python3 - > $OUT/probes.txt <<'PY'
import json, glob
for r in sorted(glob.glob("/tmp/found41-*") + glob.glob("/tmp/v16-*")):
    try: d = json.load(open(r + "/summary.json"))
    except Exception as e: print(r, "no summary", e); continue
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail", "")[:260])
PY
grep -ho "attribution: [^]]*" /tmp/logs/*-run1.txt | sort | uniq -c >> $OUT/probes.txt; cut -c1-330 $OUT/probes.txt
tar -C /tmp -cJf $OUT/logs.tar.xz logs
