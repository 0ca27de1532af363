# call 28 (nvidia-h200): c = dc73177 (a block's first step made ready beside the block before),
# z = 4c96b83 (before). The corpus live on c (verdicts for baseline h200-2026-11-30-59a14fa); a
# mixed campaign (seed 67, 45 s) on z and on c; a legal campaign on c (seed 6, 20 s) with user
# and system CPU sampled every 50 ms.
mkdir -p /tmp/bin /tmp/logs && for b in z c; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
( time /tmp/bin/c run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -4 /tmp/logs/corpus.txt | tee $OUT/corpus.txt
python3 -c "
import json
s=json.load(open('/tmp/r1/summary.json'))
json.dump({r['case']:r['verdict'] for r in s['results']}, open('$OUT/corpus-verdicts.json','w'), indent=0, sort_keys=True)"
for b in z c; do
  mkdir -p /tmp/reg67-$b
  PTXCONFORM_CACHE=/tmp/c-67-$b timeout 100 /tmp/bin/$b fuzz --seed 67 --config mixed --trap-budget 0.25 --seconds 45 --out /tmp/ms67-$b --regressions /tmp/reg67-$b > $OUT/camp67-$b.txt 2>&1
  echo "== $b"; grep -E "^done|^sustained" $OUT/camp67-$b.txt | cut -c1-300; ls /tmp/reg67-$b
done
python3 .dev/carry/sampler2.py $OUT/cpu.txt & S=$!
date +%s.%N > $OUT/start.txt
PTXCONFORM_TRACE=$OUT/trace-c6.json PTXCONFORM_CACHE=/tmp/c-6 timeout 60 /tmp/bin/c fuzz --config legal --seed 6 --seconds 20 --values-per-shape 80 --out /tmp/f6 > $OUT/fuzz-c6.txt 2>&1
kill $S; grep -E "^done|^sustained" $OUT/fuzz-c6.txt | cut -c1-200
python3 -c "
r=[l.split() for l in open('$OUT/cpu.txt')]
s=float(open('$OUT/start.txt').read())
u=[float(x[1]) for x in r if 1.5<float(x[0])-s<19.5]; y=[float(x[2]) for x in r if 1.5<float(x[0])-s<19.5]
print('user %.1f system %.1f cores (mean over 1.5-19.5 s)'%(sum(u)/len(u), sum(y)/len(y)))"
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
