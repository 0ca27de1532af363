source .dev/probe/setup.sh >/dev/null
f() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" /usr/bin/time -f "TIME %e s %P cpu %M KB" $P fuzz --config legal --seed $seed --seconds $S $FZ --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $* $FZ"; grep -h -E '^done|TIME' $OUT/fz-$tag.txt | cut -c1-110; }
S=8 FZ= f warm 3 X=1; rm $OUT/fz-warm.txt
export FZ="--batch 16384" S=20
f B 0 AB_STEP=2048
f Dthp 0 AB_STEP=2048 MIMALLOC_ALLOW_THP=0
f Dpurge 0 AB_STEP=2048 MIMALLOC_PURGE_DELAY=-1
f D 0 AB_STEP=2048 MIMALLOC_ALLOW_THP=0 MIMALLOC_PURGE_DELAY=-1
f Dthp2 0 AB_STEP=2048 MIMALLOC_ALLOW_THP=0
f B2 0 AB_STEP=2048
f D2 0 AB_STEP=2048 MIMALLOC_ALLOW_THP=0 MIMALLOC_PURGE_DELAY=-1
cat /sys/kernel/mm/transparent_hugepage/enabled
