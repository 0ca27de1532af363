# call 4: the seed-23/24 programs (A-MB-PARITY-PASSED-HW) twice, the corpus live on the new
# model against the baseline, and concurrent mixed campaigns on it
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
f=v11b; cp .dev/carry/$f.yaml $OUT/$f.yaml
$P run --devices 0 --record --attribute all --out /tmp/$f-1 $OUT/$f.yaml > /tmp/logs/$f-run1.txt 2>&1
cp .dev/carry/$f.yaml /tmp/$f.yaml; $P run --devices 0 --out /tmp/$f-2 /tmp/$f.yaml > /tmp/logs/$f-run2.txt 2>&1
python3 - > $OUT/probes.txt <<'PY'
import json
for r in ("/tmp/v11b-1", "/tmp/v11b-2"):
    d = json.load(open(r + "/summary.json"))
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail", "")[:160])
PY
cat $OUT/probes.txt
( time $P run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -6 /tmp/logs/corpus.txt > $OUT/corpus.txt
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json | tee $OUT/corpus-cmp.txt
cp /tmp/r1/summary.json /tmp/logs/corpus-summary.json
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  grep -E "^done|^finding|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -8 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 25 --config mixed --concurrent 64 --trap-budget 0.25 --seconds 150
run 26 --config mixed --concurrent 128 --trap-budget 0.25 --seconds 100
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg25 reg26
