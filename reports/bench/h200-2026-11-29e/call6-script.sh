source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config legal --seed $seed --seconds ${S:-30} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h -E "timing|XX|^wall" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//"; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
g old0 0 XX_OLDCOV=1
g new0 0
g old1 1 XX_OLDCOV=1
g new1 1
$P bench --only fuzz --out $OUT/bench.json > $OUT/bench.txt 2>&1; grep -v "^coverage" $OUT/bench.txt | tail -12
