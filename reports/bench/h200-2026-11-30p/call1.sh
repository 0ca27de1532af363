# call 8: the open finding's probes twice each (first recorded, attributed), the v11 and
# arrive-count probes under ptxas -O0 and the JIT, then concurrent mixed campaigns on seeds 27, 28
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
for f in copies-land-first seed26-regress.70980135af709b00; do
  cp .dev/carry/$f.yaml $OUT/$f.yaml
  timeout 120 $P run --devices 0 --record --attribute all --out /tmp/$f-1 $OUT/$f.yaml > /tmp/logs/$f-run1.txt 2>&1
  cp .dev/carry/$f.yaml /tmp/$f.yaml; timeout 120 $P run --devices 0 --out /tmp/$f-2 /tmp/$f.yaml > /tmp/logs/$f-run2.txt 2>&1
done
for b in ptxas-13.0-O0 jit-O4; do
  timeout 100 $P run --devices 0 --build $b --out /tmp/b-$b cases/probes/fuzz-mispredicted-v11.yaml cases/probes/arrive-counts.yaml > /tmp/logs/build-$b.txt 2>&1
done
python3 - > $OUT/probes.txt <<'PY'
import json, glob
for r in sorted(glob.glob("/tmp/copies-land-first-*") + glob.glob("/tmp/seed26-*") + glob.glob("/tmp/b-*")):
    try: d = json.load(open(r + "/summary.json"))
    except Exception as e: print(r, "no summary", e); continue
    for x in d["results"]: print(r, x["case"], x["verdict"], x.get("detail", "")[:200])
PY
grep -ho "attribution: [^]]*" /tmp/logs/*-run1.txt | sort | uniq -c >> $OUT/probes.txt; cut -c1-260 $OUT/probes.txt
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  grep -E "^done|^finding|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -8 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 27 --config mixed --concurrent 64 --trap-budget 0.25 --seconds 130
run 28 --config mixed --concurrent 128 --trap-budget 0.25 --seconds 110
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg27 reg28
