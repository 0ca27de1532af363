# call 6 (nvidia-h200): 6ec7b13: the corpus live against baseline h200-2026-11-30-59a14fa, the
# probes live, then a concurrent mixed campaign on seed 45
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
( time $P run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -6 /tmp/logs/corpus.txt | tee $OUT/corpus.txt
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-30-59a14fa/summary.json /tmp/r1/summary.json | tee $OUT/corpus-cmp.txt
cp /tmp/r1/summary.json /tmp/logs/corpus-summary.json
( time $P run -q --devices 0 --out /tmp/r2 cases/probes ) > /tmp/logs/probes.txt 2>&1
tail -6 /tmp/logs/probes.txt | tee $OUT/probes.txt
python3 - <<'PY' | tee -a $OUT/probes.txt
import json
d = json.load(open("/tmp/r2/summary.json"))
bad = [x for x in d["results"] if x["verdict"] not in ("pass", "timeout_expected", "trap_expected", "reference_undefined", "undefined_completed", "driver_rejected_expected")]
print(len(d["results"]), "probe results;", len(bad), "other verdicts")
for x in bad[:20]: print(x["case"], x["verdict"], x.get("detail", "")[:200])
PY
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  cp -r /tmp/ms$s/divergences /tmp/logs/div$s 2>/dev/null
  grep -E "^done|^finding|^NEW|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -14 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 45 --config mixed --concurrent 96 --trap-budget 0.25 --seconds 100
mkdir -p /tmp/reg45
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg45
