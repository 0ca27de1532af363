# call 4 (2026-11-30q): the drop-to-zero probes and the generator-7 findings, each twice (first recorded and
# attributed), then the mutants campaign (seed 7, mixed, 60 s) and a mixed campaign (seed 40, 90 s) on the model
# that counts the drop (A-MB-ARRIVE-COUNTS-HW), generator 7
mkdir -p /tmp/bin /tmp/logs && xz -dc .dev/carry/mut7.xz > /tmp/bin/m7 && chmod +x /tmp/bin/m7
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/m7
for f in expected-zero v14; do
  cp .dev/carry/$f.yaml $OUT/$f.yaml
  timeout 100 $P run --devices 0 --record --attribute all --out /tmp/$f-1 $OUT/$f.yaml > /tmp/logs/$f-run1.txt 2>&1
  cp .dev/carry/$f.yaml /tmp/$f.yaml; timeout 100 $P run --devices 0 --out /tmp/$f-2 /tmp/$f.yaml > /tmp/logs/$f-run2.txt 2>&1
done
python3 - > $OUT/probes.txt <<'PY'
import json, glob
for r in sorted(glob.glob("/tmp/expected-zero-*") + glob.glob("/tmp/v14-*")):
    try: d = json.load(open(r + "/summary.json"))
    except Exception as e: print(r, "no summary", e); continue
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail", "")[:220])
PY
grep -ho "attribution: [^]]*" /tmp/logs/*-run1.txt | sort | uniq -c >> $OUT/probes.txt; cut -c1-300 $OUT/probes.txt
camp() { t=$1; shift; mkdir -p /tmp/reg-$t
  PTXCONFORM_CACHE=/tmp/c-$t timeout 150 $P fuzz "$@" --out /tmp/mc-$t --regressions /tmp/reg-$t > /tmp/logs/log-$t.txt 2>&1
  echo "== $t"; grep -E "^done|^finding|^predicted" /tmp/logs/log-$t.txt | cut -c1-300
  cp /tmp/mc-$t/campaign-coverage.md /tmp/logs/cov-$t.md; grep "^| mbarrier\.[a-z_]* |" /tmp/logs/cov-$t.md | cut -c1-200; ls /tmp/reg-$t; }
camp g7b-s7 --mutants --seed 7 --config mixed --trap-budget 0.25 --seconds 60
timeout 60 $P mutants --campaign /tmp/mc-g7b-s7 --json /tmp/logs/mutants-g7b-s7.json > /tmp/logs/mutants-g7b-s7.txt 2>&1; grep "^campaign\|of the 72\|time to kill" /tmp/logs/mutants-g7b-s7.txt
camp g7b-s40 --seed 40 --config mixed --trap-budget 0.25 --seconds 90
tar -C /tmp -cJf $OUT/logs.tar.xz logs $(cd /tmp && ls -d reg-*)
