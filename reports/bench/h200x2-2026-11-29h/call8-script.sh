# call 8 (nvidia-h200-x2): each batch's first steps small and growing (XX_RAMP=first size) against fixed steps
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
g() { tag=$1; dv=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config legal --seed 0 --seconds 25 --devices $dv --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag $dv $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; }
$P fuzz --config legal --seed 3 --seconds 6 --devices 0,1 --out /tmp/f-warm > /dev/null 2>&1
g two-base1 0,1 env
g two-ramp1 0,1 env PTXCONFORM_XX_RAMP=256
g two-base2 0,1 env
g two-ramp2 0,1 env PTXCONFORM_XX_RAMP=256
g one-base1 0 env
g one-ramp1 0 env PTXCONFORM_XX_RAMP=256
