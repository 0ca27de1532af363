# call 1 (2026-11-30q): the corpus and the probes live on c1e6c7e, then mixed campaigns on seeds 37, 38
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs; $P --version | tee $OUT/version.txt
timeout 150 $P run --devices 0 --out /tmp/corp cases > /tmp/logs/corpus.txt 2>&1; tail -4 /tmp/logs/corpus.txt | cut -c1-300
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-30-59a14fa/summary.json /tmp/corp/summary.json | tee $OUT/corpus-cmp.txt
cp /tmp/corp/summary.json /tmp/logs/corpus-summary.json
timeout 200 $P run --devices 0 --out /tmp/probes cases/probes > /tmp/logs/probes.txt 2>&1; tail -4 /tmp/logs/probes.txt | cut -c1-300
$P run -q --replay H200 --out /tmp/probes-replay cases/probes > /dev/null 2>&1
python3 .dev/carry/cmp.py /tmp/probes-replay/summary.json /tmp/probes/summary.json | tee $OUT/probes-cmp.txt
cp /tmp/probes/summary.json /tmp/logs/probes-summary.json
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s timeout 150 $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  cp /tmp/ms$s/campaign-coverage.md /tmp/logs/cov$s.md 2>/dev/null
  grep -E "^done|^finding|^predicted|^sustained|^coverage" /tmp/logs/camp$s.txt | cut -c1-400 | tail -8 | tee $OUT/camp$s.txt; ls /tmp/reg$s; }
run 37 --config mixed --concurrent 96 --trap-budget 0.25 --seconds 110
run 38 --config mixed --trap-budget 0.25 --seconds 90
tar -C /tmp -cJf $OUT/logs.tar.xz logs reg37 reg38
