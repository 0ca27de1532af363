source .dev/probe/setup.sh >/dev/null
lscpu | grep -E "^CPU\(s\)|Thread|Core|Socket|Model name"
f() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" /usr/bin/time -f "TIME %e s %P cpu %M KB" $P fuzz --config legal --seed $seed --seconds 25 $FZ --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $* $FZ"; grep -h -E '^done|TIME' $OUT/fz-$tag.txt | cut -c1-110; grep -h 'timing' $OUT/fz-$tag.txt | sed 's/taking.*to start),//' | cut -c1-300; }
FZ= f A 0 X=1
FZ="--batch 16384" f B 0 AB_STEP=2048
FZ="--batch 16384" f C 0 AB_STEP=2048 AB_MPC=1
FZ="--batch 16384" f D 0 AB_STEP=2048 MIMALLOC_ALLOW_THP=0 MIMALLOC_PURGE_DELAY=-1
FZ= f A2 0 X=1
FZ="--batch 16384" f B2 0 AB_STEP=2048
FZ= f E 0 AB_MPC=1
