source .dev/probe/setup.sh
f() { tag=$1; bin=$2; seed=$3; shift 3; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" /usr/bin/time -f "TIME %e s %P cpu %M KB" $bin fuzz --config legal --seed $seed --seconds $S --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done|TIME' $OUT/fz-$tag.txt | cut -c1-120; grep -h 'timing' $OUT/fz-$tag.txt | sed 's/taking.*to start),//' | cut -c1-260; }
S=8 f warm $P 3 X=1; rm $OUT/fz-warm.txt
$P run -q --devices 0 --out /tmp/r1 cases > $OUT/corpus.txt 2>&1; tail -2 $OUT/corpus.txt | cut -c1-300
python3 .dev/probe/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json
cp /tmp/r1/summary.json $OUT/corpus-summary.json
$P run -q --devices 0 --out /tmp/r2 cases/probes/fuzz-mispredicted-v5.yaml > $OUT/v5.txt 2>&1; tail -3 $OUT/v5.txt | cut -c1-300
env PTXCONFORM_CACHE=/tmp/cache-mixed /usr/bin/time -f "TIME %e s" $P fuzz --config mixed --trap-budget 0.25 --seed 0 --seconds 30 --out /tmp/f-mixed > $OUT/fz-mixed.txt 2>&1; echo "== mixed"; grep -h -E '^done|^predicted|trap|TIME' $OUT/fz-mixed.txt | cut -c1-200 | tail -8
S=30
f new0 $P 0 X=1
