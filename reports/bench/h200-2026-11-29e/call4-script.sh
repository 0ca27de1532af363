source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag XX_T=1 "$@" $P fuzz --config legal --seed $seed --seconds ${S:-30} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h -E "timing|XX|^wall" $OUT/fz-$tag.txt | grep -v "XX pipeline" | grep -v "XX worker" | sed "s/; 0 traps.*to start)//"; grep -h "XX pipeline" $OUT/fz-$tag.txt | tail -1; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
g old0 0 XX_OLDJUDGE=1 XX_OLDPOST=1
g new0 0
g old1 1 XX_OLDJUDGE=1 XX_OLDPOST=1
g new1 1
g post0 0 XX_OLDJUDGE=1
