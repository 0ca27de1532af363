# call 3: the arrive-counts probes and the concurrent campaigns' programs twice (the first
# recorded and attributed), then concurrent mixed campaigns on the A-MB-ARRIVE-COUNTS-HW model
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
for f in arrive-counts v11; do
  cp .dev/carry/$f.yaml $OUT/$f.yaml
  $P run --devices 0 --record --attribute all --out /tmp/$f-1 $OUT/$f.yaml > /tmp/logs/$f-run1.txt 2>&1
  cp .dev/carry/$f.yaml /tmp/$f.yaml; $P run --devices 0 --out /tmp/$f-2 /tmp/$f.yaml > /tmp/logs/$f-run2.txt 2>&1
done
python3 - > $OUT/probes.txt <<'PY'
import json
for f in ("arrive-counts", "v11"):
  for r in ("/tmp/%s-1" % f, "/tmp/%s-2" % f):
    d = json.load(open(r + "/summary.json"))
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail", "")[:160])
PY
grep -ho "attribution: [^]]*" /tmp/logs/*-run1.txt | sort | uniq -c >> $OUT/probes.txt; cat $OUT/probes.txt | cut -c1-220
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  grep -E "^done|^finding|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -8 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 23 --config mixed --concurrent 64 --trap-budget 0.25 --seconds 150
run 24 --config mixed --concurrent 160 --trap-budget 0.25 --seconds 120
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg23 reg24
