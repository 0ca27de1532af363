source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag XX_LATE_WARM=1 "$@" $P fuzz --config legal --seed $seed --seconds ${S:-30} ${EXTRA} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $* $EXTRA"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h -E "timing" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//" | cut -c1-200; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
g new0 0
g old0 0 XX_OLD_TRACE=1
g new1 1
g old1 1 XX_OLD_TRACE=1
EXTRA="--values-per-shape 80" g newk80 0
XX_LATE_WARM=1 PTXCONFORM_CACHE=/tmp/cache-b $P bench --only fuzz --fuzz-seconds 10 --out $OUT/bench.json > $OUT/bench.txt 2>&1; grep -A12 "fuzz mix" $OUT/bench.txt | cut -c1-120
