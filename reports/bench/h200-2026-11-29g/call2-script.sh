source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-25} "$@" --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-160; grep -h -E "timing|^wall" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//" | cut -c1-300; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
PTXCONFORM_CACHE=/tmp/cache-r $P run -q --devices 0 --out /tmp/r1 cases > $OUT/corpus.txt 2>&1; tail -3 $OUT/corpus.txt
python3 .dev/probe/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json | tail -5
cp /tmp/r1/summary.json $OUT/corpus-summary.json
g a0 0
g a1 1
PTXCONFORM_CACHE=/tmp/cache-b $P bench --only fuzz --fuzz-seconds 10 --fuzz-mixes all --out $OUT/bench.json > $OUT/bench.txt 2>&1; grep -A2 "fuzz mix" $OUT/bench.txt | cut -c1-120
