source .dev/probe/setup.sh >/dev/null
f() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" /usr/bin/time -f "TIME %e s %P cpu %M KB" $P fuzz --config legal --seed $seed --seconds 25 $FZ --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $* $FZ"; grep -h -E '^done|TIME|^wall' $OUT/fz-$tag.txt | cut -c1-110; grep -h 'timing' $OUT/fz-$tag.txt | sed 's/taking.*to start),//' | cut -c1-300; }
FZ= f base 0 X=1
FZ="--batch 8192" f b8k 0 X=1
FZ="--batch 16384" f b16k 0 X=1
FZ= f eq1k 0 AB_STEP=1024
FZ="--batch 16384" f b16keq2k 0 AB_STEP=2048
FZ= f base2 0 X=1
