source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config legal --seed $seed --seconds ${S:-30} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h -E '^wall' $OUT/fz-$tag.txt; grep -h 'timing' $OUT/fz-$tag.txt | sed 's/taking.*to start),//' | cut -c10-200; }
S=8 g warm 3 X=1 >/dev/null; rm -f $OUT/*warm*
g on0 0 X=1
g cnice0 0 XX_COMPILE_NICE=0
g first512 0 XX_FIRST=512
g step1024 0 XX_STEP=1024
g step4096 0 XX_STEP=4096
