source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt "$@" python3 .dev/probe/cpuprof.py $P fuzz --config legal --seed $seed --seconds ${S:-30} --out /tmp/f-$tag > $OUT/cpu-$tag.txt 2>&1; echo "== $tag seed $seed $*"; head -1 $OUT/cpu-$tag.txt; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h 'timing' $OUT/fz-$tag.txt | sed 's/taking.*to start),//' | cut -c10-200; }
S=8 g warm 3 X=1 >/dev/null; rm -f $OUT/*warm*
g on0 0 X=1
g off0 0 PTXCONFORM_BACKGROUND_NICE=0
g on1 1 X=1
g off1 1 PTXCONFORM_BACKGROUND_NICE=0
rm -f $OUT/cpu-*
PTXCONFORM_CACHE=/tmp/cache-bench $P bench --only fuzz --fuzz-seconds 10 --out $OUT/bench.json > $OUT/bench.txt 2>&1; tail -9 $OUT/bench.txt
env PTXCONFORM_CACHE=/tmp/cache-mixed /usr/bin/time -f "TIME %e s" $P fuzz --config mixed --trap-budget 0.25 --seed 0 --seconds 30 --out /tmp/f-mixed > $OUT/fz-mixed.txt 2>&1; echo "== mixed"; grep -h -E '^done|^predicted|TIME' $OUT/fz-mixed.txt | cut -c1-220 | tail -4
