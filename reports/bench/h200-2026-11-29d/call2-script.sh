source .dev/probe/setup.sh
which perf; ls /usr/bin/perf* 2>/dev/null | head -3
g() { tag=$1; shift; env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt "$@" python3 .dev/probe/cpuprof.py $P fuzz --config legal --seed 0 --seconds ${S:-30} --out /tmp/f-$tag > $OUT/cpu-$tag.txt 2>&1; echo "== $tag $*"; cat $OUT/cpu-$tag.txt | head -14; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h 'timing' $OUT/fz-$tag.txt | sed 's/taking.*to start),//' | cut -c1-300; }
S=8 g warm X=1 >/dev/null
g d16 X=1
g d8 RAYON_NUM_THREADS=8
g d12 RAYON_NUM_THREADS=12
