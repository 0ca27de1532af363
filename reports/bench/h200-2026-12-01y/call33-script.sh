# call 33 (nvidia-h200): f = 7d72eb4 (the session's final code), z = 4c96b83. The legal row (20 s)
# once each, alternating; the corpus live on f (verdicts for baseline h200-2026-11-30-59a14fa).
mkdir -p /tmp/bin /tmp/logs && for b in z f; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
for b in f z; do
  timeout 100 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$b-6.json > $OUT/bench-$b-6.txt 2>&1
  echo "== $b 6"; grep -E "^host|^all" $OUT/bench-$b-6.txt | cut -c1-160
done
( time /tmp/bin/f run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -4 /tmp/logs/corpus.txt | tee $OUT/corpus.txt
python3 -c "
import json
s=json.load(open('/tmp/r1/summary.json'))
json.dump({r['case']:r['verdict'] for r in s['results']}, open('$OUT/corpus-verdicts.json','w'), indent=0, sort_keys=True)"
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
