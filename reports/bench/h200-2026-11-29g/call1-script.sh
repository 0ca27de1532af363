source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-25} "$@" --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $* MPC=${PTXCONFORM_XX_MPC:-3}"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-160; grep -h -E "timing|^wall|module" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//" | cut -c1-300; }
S=8 g warm 3 >/dev/null; rm -f $OUT/*warm*
g a0 0
PTXCONFORM_XX_MPC=0 g b0 0
PTXCONFORM_XX_MPC=1 g c0 0
g a1 1
PTXCONFORM_XX_MPC=0 g b1 1
PTXCONFORM_XX_MPC=0 g d0 0 --batch 32768
