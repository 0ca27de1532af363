source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; (vmstat 1 > $OUT/vm-$tag.txt &) ; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config legal --seed $seed --seconds ${S:-30} ${EXTRA} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; pkill vmstat; echo "== $tag seed $seed $* $EXTRA"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h -E "timing|^wall" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//"; awk 'NR>3{id+=$15; n++} END{printf "cpu idle avg %.1f%% over %d s\n", id/n, n}' $OUT/vm-$tag.txt; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
g late0 0 XX_LATE_WARM=1
g early0 0
g early5_0 0 XX_COMPILE_BY=5
g late1 1 XX_LATE_WARM=1
g early1 1
EXTRA="--values-per-shape 80" g earlyk80_0 0
