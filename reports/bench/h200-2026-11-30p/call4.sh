# call 11: HEAD (H29's rule): the corpus live against the baseline, the new probes and corpus
# cases live, then concurrent mixed campaigns on seeds 33 and 34
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
$P --version | tee $OUT/version.txt
( time $P run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -6 /tmp/logs/corpus.txt > $OUT/corpus.txt
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json | tee $OUT/corpus-cmp.txt
python3 - >> $OUT/corpus-cmp.txt <<'PY'
import json
for x in json.load(open("/tmp/r1/summary.json"))["results"]:
    if "parity_wait_race" in x["case"] or "copies_first" in x["case"] or "lands_first" in x["case"] or ".v12." in x["case"] or ".v13." in x["case"]:
        print(x["case"], x["verdict"], x.get("detail", "")[:200])
PY
cat $OUT/corpus-cmp.txt | cut -c1-260
cp /tmp/r1/summary.json /tmp/logs/corpus-summary.json
timeout 150 $P run --devices 0 --out /tmp/pr cases/probes/copies-land-first.yaml cases/probes/lands-before-wait.yaml cases/probes/fuzz-mispredicted-v12.yaml cases/probes/fuzz-mispredicted-v13.yaml > /tmp/logs/probes.txt 2>&1
python3 - > $OUT/probes.txt <<'PY2'
import json
for x in json.load(open("/tmp/pr/summary.json"))["results"]:
    print(x["case"], x["verdict"], x.get("detail", "")[:200])
PY2
cut -c1-260 $OUT/probes.txt
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  grep -E "^done|^finding|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -8 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 33 --config mixed --concurrent 96 --trap-budget 0.25 --seconds 150
run 34 --config mixed --concurrent 160 --trap-budget 0.25 --seconds 120
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg33 reg34
