# call 10: the seed-29/30 programs and the lands-before-wait probes twice each (first recorded
# and attributed), then concurrent mixed campaigns on seeds 31 and 32
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
for f in v13 lw; do
  cp .dev/carry/$f.yaml $OUT/$f.yaml
  timeout 150 $P run --devices 0 --record --attribute all --out /tmp/$f-1 $OUT/$f.yaml > /tmp/logs/$f-run1.txt 2>&1
  cp .dev/carry/$f.yaml /tmp/$f.yaml; timeout 150 $P run --devices 0 --out /tmp/$f-2 /tmp/$f.yaml > /tmp/logs/$f-run2.txt 2>&1
done
python3 - > $OUT/probes.txt <<'PY'
import json
for r in ("/tmp/v13-1", "/tmp/v13-2", "/tmp/lw-1", "/tmp/lw-2"):
    try: d = json.load(open(r + "/summary.json"))
    except Exception as e: print(r, "no summary", e); continue
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail", "")[:220])
PY
grep -ho "attribution: [^]]*" /tmp/logs/*-run1.txt | sort | uniq -c >> $OUT/probes.txt; cut -c1-300 $OUT/probes.txt
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  grep -E "^done|^finding|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -8 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 31 --config mixed --concurrent 128 --trap-budget 0.25 --seconds 150
run 32 --config mixed --concurrent 64 --trap-budget 0.25 --seconds 120
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg31 reg32
