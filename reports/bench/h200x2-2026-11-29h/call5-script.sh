# call 5 (nvidia-h200-x2): steps prepared two ahead (XX_AHEAD=2, the new default) against one (=1, as before)
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
g() { tag=$1; ah=$2; shift 2; env PTXCONFORM_XX_AHEAD=$ah PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed 0 --seconds 25 --out /tmp/f-$tag "$@" > $OUT/fz-$tag.txt 2>&1; echo "== $tag ahead $ah $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; }
$P fuzz --config legal --seed 3 --seconds 6 --devices 0,1 --out /tmp/f-warm > /dev/null 2>&1
g one1 1 --devices 0
g one2 2 --devices 0
g two1 1 --devices 0,1
g two2 2 --devices 0,1
g two3 3 --devices 0,1
$P bench --only devices --devices 0,1 --fuzz-seconds 30 --out $OUT/bench-devices.json > $OUT/bench-devices.txt 2>&1; echo "== bench rc $?"; grep -A3 "^devices" $OUT/bench-devices.txt | cut -c1-150
