source .dev/probe/setup.sh
nvidia-smi --query-gpu=index,name --format=csv,noheader
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-30} "$@" --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-160; grep -h -E "timing|^wall" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//" | cut -c1-200; }
S=8 g warm 3 --devices 0 >/dev/null; rm -f $OUT/*warm*
g one0 0 --devices 0
g two0 0 --devices 0,1
