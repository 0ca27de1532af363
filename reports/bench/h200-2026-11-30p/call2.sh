# call 9: A-MB-COPIES-FIRST-HW's model: the seed-26 program live twice (first recorded and
# attributed), the copies-first probes live, the corpus live against the baseline, then
# concurrent mixed campaigns on seeds 29 and 30
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
cp .dev/carry/v12.yaml $OUT/v12.yaml
timeout 120 $P run --devices 0 --record --attribute all --out /tmp/v12-1 $OUT/v12.yaml > /tmp/logs/v12-run1.txt 2>&1
cp .dev/carry/v12.yaml /tmp/v12.yaml; timeout 120 $P run --devices 0 --out /tmp/v12-2 /tmp/v12.yaml > /tmp/logs/v12-run2.txt 2>&1
timeout 120 $P run --devices 0 --out /tmp/cf-1 cases/probes/copies-land-first.yaml > /tmp/logs/cf-run.txt 2>&1
python3 - > $OUT/probes.txt <<'PY'
import json
for r in ("/tmp/v12-1", "/tmp/v12-2", "/tmp/cf-1"):
    try: d = json.load(open(r + "/summary.json"))
    except Exception as e: print(r, "no summary", e); continue
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail", "")[:220])
PY
grep -ho "attribution: [^]]*" /tmp/logs/v12-run1.txt | sort | uniq -c >> $OUT/probes.txt; cut -c1-300 $OUT/probes.txt
( time $P run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -6 /tmp/logs/corpus.txt > $OUT/corpus.txt
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json | tee $OUT/corpus-cmp.txt
cp /tmp/r1/summary.json /tmp/logs/corpus-summary.json
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  grep -E "^done|^finding|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -8 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 29 --config mixed --concurrent 96 --trap-budget 0.25 --seconds 140
run 30 --config mixed --concurrent 192 --trap-budget 0.25 --seconds 110
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg29 reg30
