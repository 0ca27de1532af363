# call 7 (nvidia-h200-x2): two lanes, each lane's reference stage on a pool of its own (XX_LANEPOOLS) or shared
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
g() { tag=$1; shift; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config legal --seed 0 --seconds 25 --devices 0,1 --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; }
$P fuzz --config legal --seed 3 --seconds 6 --devices 0,1 --out /tmp/f-warm > /dev/null 2>&1
g shared1 env
g own1 env PTXCONFORM_XX_LANEPOOLS=1
g shared2 env
g own2 env PTXCONFORM_XX_LANEPOOLS=1
