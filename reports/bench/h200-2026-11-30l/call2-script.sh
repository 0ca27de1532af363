# utilisation timeline of a 30 s campaign
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
for s in 0 1; do
rm -f /tmp/stop; python3 reports/bench/h200-2026-11-30l/util.py /tmp/stop $OUT/util-$s.txt & u=$!
PTXCONFORM_CACHE=/tmp/c-$s $P fuzz --config legal --seed $s --seconds 30 --out /tmp/f-$s > $OUT/fz-$s.txt 2>&1
touch /tmp/stop; wait $u
grep -E "^done|^sustained" $OUT/fz-$s.txt | cut -c1-150
python3 - $OUT/util-$s.txt <<'PY'
import sys
rows=[list(map(float,l.split())) for l in open(sys.argv[1])]
import collections
per=collections.defaultdict(list)
for t,b,w in rows: per[int(t)].append(b)
print(" ".join("%d:%.1f"%(k,sum(v)/len(v)) for k,v in sorted(per.items())))
PY
done
