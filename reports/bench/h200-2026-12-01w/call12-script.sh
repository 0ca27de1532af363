# call 12 (nvidia-h200): the session's final binary (44bfcbf, m) against 63edfdd (d), the
# all-families fuzz row (20 s), alternating, twice each; then m: every fuzz mix (10 s) and the
# planted-trap row, the corpus live (verdicts for baseline h200-2026-11-30-59a14fa), a mixed
# campaign (seed 67), and the mutants campaign (--features mutants build of 44bfcbf), seed 7,
# 60 s, as in earlier sessions
mkdir -p /tmp/bin /tmp/logs && for b in m d mut; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b; done; chmod +x /tmp/bin/*
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/m
for r in 1 2; do for b in m d; do
  timeout 100 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$b-$r.json > $OUT/bench-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^all" $OUT/bench-$b-$r.txt | cut -c1-150
done; done
timeout 240 $P bench --only fuzz --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1
grep -E "^[a-z].* pass" $OUT/bench-fuzz.txt | cut -c1-140
( time $P run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -4 /tmp/logs/corpus.txt | tee $OUT/corpus.txt
python3 -c "
import json
s=json.load(open('/tmp/r1/summary.json'))
json.dump({r['case']:r['verdict'] for r in s['results']}, open('$OUT/corpus-verdicts.json','w'), indent=0, sort_keys=True)"
mkdir -p /tmp/reg67
PTXCONFORM_CACHE=/tmp/c-67 timeout 100 $P fuzz --seed 67 --config mixed --trap-budget 0.25 --seconds 45 --out /tmp/ms67 --regressions /tmp/reg67 > /tmp/logs/camp67.txt 2>&1
grep -E "^done|^finding|^NEW|^predicted|^sustained|^coverage|^wall|^divergence" /tmp/logs/camp67.txt | cut -c1-400 | tail -12 | tee $OUT/camp67.txt
ls /tmp/reg67
PTXCONFORM_CACHE=/tmp/c-m timeout 150 /tmp/bin/mut fuzz --mutants --seed 7 --config mixed --trap-budget 0.25 --seconds 60 --out /tmp/mc --regressions /tmp/reg7 > /tmp/logs/mutants-campaign.txt 2>&1
grep -E "^done|^finding|^NEW|^sustained|^coverage" /tmp/logs/mutants-campaign.txt | cut -c1-300 | tee $OUT/mutants-campaign.txt
timeout 120 /tmp/bin/mut mutants --campaign /tmp/mc --json /tmp/logs/mutants.json > /tmp/logs/mutants.txt 2>&1; tail -8 /tmp/logs/mutants.txt
cp /tmp/logs/mutants.txt /tmp/logs/mutants.json /tmp/logs/camp67.txt $OUT/
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
