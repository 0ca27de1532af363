source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config legal --seed $seed --seconds ${S:-30} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h -E "timing|XX" $OUT/fz-$tag.txt | grep -v "XX pipeline" | sed "s/; 0 traps.*to start)//"; grep -h "XX pipeline" $OUT/fz-$tag.txt | tail -1; }
S=8 g warm 3 XX_T=1 >/dev/null; rm -f $OUT/*warm*
g ${TAG}0 0 XX_T=1
[ -n "$TWO" ] && g ${TAG}1 1 XX_T=1
true
