# call 22 (nvidia-h200): e804c16 (small pages reverted) plus an uncommitted variable: a batch's
# first and last steps of PTXCONFORM_TAPER programs (0: equal steps of 2,048, as committed; 512),
# the legal row alternating, three times each; then the corpus live at the committed default.
mkdir -p /tmp/bin /tmp/logs && xz -dc .dev/carry/t.xz > /tmp/bin/t && chmod +x /tmp/bin/t
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2 3; do for n in 0 512; do
  PTXCONFORM_TAPER=$n timeout 100 /tmp/bin/t bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-t$n-$r.json > $OUT/bench-t$n-$r.txt 2>&1
  echo "== taper $n $r"; grep -E "^all" $OUT/bench-t$n-$r.txt | cut -c1-150
done; done
( time /tmp/bin/t run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -4 /tmp/logs/corpus.txt | tee $OUT/corpus.txt
python3 -c "
import json
s=json.load(open('/tmp/r1/summary.json'))
json.dump({r['case']:r['verdict'] for r in s['results']}, open('$OUT/corpus-verdicts.json','w'), indent=0, sort_keys=True)"
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
