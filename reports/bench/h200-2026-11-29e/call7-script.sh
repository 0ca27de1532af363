source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config legal --seed $seed --seconds ${S:-30} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h -E "timing|XX|^wall" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//"; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
rm -f /tmp/ptxlog
g wrap0 0 PTXAS=$PWD/.dev/probe/ptxwrap.sh
cp /tmp/ptxlog $OUT/ptxlog.txt
python3 - <<'PY'
import collections
rows=[l.split() for l in open('/tmp/ptxlog')]
def cpu(a,b):
    f=lambda x: float(x[:-1].split('m')[0])*60+float(x[:-1].split('m')[1])
    return f(a)+f(b)
agg=collections.defaultdict(lambda:[0,0.0,0.0])
t0=min(int(r[0]) for r in rows)
for r in rows:
    kind='oracle' if r[-1]=='/dev/null' else ('version' if r[-1]=='--version' else 'compile')
    a=agg[kind]; a[0]+=1; a[1]+=(int(r[1])-int(r[0]))/1e9; a[2]+=cpu(r[3],r[4])
for k,v in agg.items(): print(k, 'runs',v[0],'wall-s %.1f'%v[1],'cpu-s %.1f'%v[2])
ts=collections.Counter(((int(r[0])-t0)//5_000_000_000, 'o' if r[-1]=='/dev/null' else 'c') for r in rows)
print(sorted(ts.items()))
PY
