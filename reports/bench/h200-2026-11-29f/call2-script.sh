source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config legal --seed $seed --seconds ${S:-30} ${EXTRA} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $* $EXTRA"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h -E "timing|^wall" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//"; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
g trace0 0 XX_TRACE=1 XX_LATE_WARM=1
grep -c XXM $OUT/fz-trace0.txt; xz -9 $OUT/fz-trace0.txt
