# call 20 (nvidia-h200): the session's final binary (a211216, m). The legal row (20 s) with
# small pages (the default now) and with mimalloc's transparent huge pages allowed
# (MIMALLOC_ALLOW_THP=1, as before a211216), alternating, three times each; every fuzz mix
# (10 s) and the planted-trap row; the corpus live (verdicts for baseline
# h200-2026-11-30-59a14fa); a mixed campaign (seed 67, 45 s).
mkdir -p /tmp/bin /tmp/logs && xz -dc .dev/carry/m.xz > /tmp/bin/m && chmod +x /tmp/bin/m
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/m
for r in 1 2 3; do for t in small thp; do
  if [ $t = thp ]; then export MIMALLOC_ALLOW_THP=1; else unset MIMALLOC_ALLOW_THP; fi
  timeout 100 $P bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$t-$r.json > $OUT/bench-$t-$r.txt 2>&1
  echo "== $t $r"; grep -E "^all" $OUT/bench-$t-$r.txt | cut -c1-150
done; done
unset MIMALLOC_ALLOW_THP
timeout 200 $P bench --only fuzz --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1
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
cp /tmp/logs/camp67.txt $OUT/camp67-full.txt
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
