source .dev/probe/setup.sh >/dev/null
f() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" /usr/bin/time -f "TIME %e s %P cpu %M KB" $P fuzz --config legal --seed $seed --seconds 30 --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done|TIME|^wall' $OUT/fz-$tag.txt | cut -c1-150; grep -h 'timing' $OUT/fz-$tag.txt | cut -c1-260; }
f new1 0 X=1
f old1 0 AB_POOLS=0
f new2 1 X=1
f old2 1 AB_POOLS=0
f new3 2 X=1
