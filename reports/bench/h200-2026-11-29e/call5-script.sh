source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config legal --seed $seed --seconds ${S:-30} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h -E "timing|XX|^wall" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//"; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
g a0 0
$P run -q --devices 0 --out /tmp/r1 cases > $OUT/corpus.txt 2>&1; tail -3 $OUT/corpus.txt
python3 .dev/probe/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json
