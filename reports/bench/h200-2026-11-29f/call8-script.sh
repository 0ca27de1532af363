source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-30} "$@" --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-160; grep -h -E "timing|^wall" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//" | cut -c1-260; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
g legal0 0
PTXCONFORM_CACHE=/tmp/cache-b $P bench --only fuzz --fuzz-seconds 10 --fuzz-mixes all --out $OUT/bench.json > $OUT/bench.txt 2>&1; grep -A2 "fuzz mix" $OUT/bench.txt | cut -c1-120
