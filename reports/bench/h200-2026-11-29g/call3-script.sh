source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-25} "$@" --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-160; grep -h -E "timing|^wall" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//" | cut -c1-300; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
g a0 0 --devices 0
g b0 0 --devices 0,0
g c0 0 --devices 0,0,0
g b1 1 --devices 0,0
g a1 1 --devices 0
