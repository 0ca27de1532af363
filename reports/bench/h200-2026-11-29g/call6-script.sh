source .dev/probe/setup.sh
g() { tag=$1; shift; env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt "$@" python3 .dev/probe/cpuprof.py $P fuzz --config legal --seed 0 --seconds ${S:-30} --out /tmp/f-$tag > $OUT/cpu-$tag.txt 2>&1; echo "== $tag $*"; cat $OUT/cpu-$tag.txt | head -16; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h 'timing' $OUT/fz-$tag.txt | sed 's/taking.*to start),//' | cut -c1-300; }
S=8 g warm >/dev/null; rm -f $OUT/*warm*
g base
