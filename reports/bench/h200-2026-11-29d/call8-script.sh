source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config legal --seed $seed --seconds ${S:-30} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h 'timing' $OUT/fz-$tag.txt | sed 's/taking.*to start),//' | cut -c10-200; }
[ -n "$WARM" ] && { S=8 g warm 3 X=1 >/dev/null; rm -f $OUT/*warm*; }
g ${TAG}0 0 X=1
g ${TAG}1 1 X=1
