source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config legal --seed $seed --seconds ${S:-30} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h -E "timing|^wall" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//"; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
g off0 0 XX_NOPRIME=1
g on0 0
g on1 1
g off1 1 XX_NOPRIME=1
