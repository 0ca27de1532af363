source .dev/probe/setup.sh >/dev/null
f() { tag=$1; bin=$2; seed=$3; shift 3; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" /usr/bin/time -f "TIME %e s %P cpu %M KB" $bin fuzz --config legal --seed $seed --seconds $S --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done|TIME' $OUT/fz-$tag.txt | cut -c1-120; grep -h 'timing' $OUT/fz-$tag.txt | sed 's/taking.*to start),//' | cut -c1-260; }

S=30
f new0 $P 0 X=1
f new1 $P 1 X=1
env PTXCONFORM_CACHE=/tmp/cache-mixed $P fuzz --config mixed --trap-budget 0.25 --seed 0 --seconds 30 --out /tmp/f-mixed > $OUT/fz-mixed.txt 2>&1; echo "== mixed"; grep -h -E '^done|^predicted' $OUT/fz-mixed.txt | cut -c1-200
PTXCONFORM_CACHE=/tmp/cache-bench $P bench --only fuzz --fuzz-seconds 10 --out $OUT/bench.json > $OUT/bench.txt 2>&1; tail -9 $OUT/bench.txt
$P run -q --devices 0 --out /tmp/r1 cases > $OUT/corpus.txt 2>&1; tail -2 $OUT/corpus.txt | cut -c1-300
python3 .dev/probe/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json
