source .dev/probe/setup.sh
g() { tag=$1; seed=$2; cfg=$3; shift 3; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" $P fuzz --config $cfg --seed $seed --seconds ${S:-30} ${EXTRA} --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $cfg $* $EXTRA"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-160; grep -h -E "timing|^wall|^predicted" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//" | cut -c1-220; }
S=8 g warm 3 legal >/dev/null; rm -f $OUT/*warm*
g legal0 0 legal
g legal1 1 legal
EXTRA="--trap-budget 0.25" g mixed0 0 mixed
PTXCONFORM_CACHE=/tmp/cache-b $P bench --only fuzz --fuzz-seconds 10 --out $OUT/bench.json > $OUT/bench.txt 2>&1; grep -A9 "fuzz mix" $OUT/bench.txt | cut -c1-120
$P bench --only fuzz-host --fuzz-programs 65536 --fuzz-mixes all --out $OUT/host.json --known reports/known-divergences.yaml > $OUT/host.txt 2>&1; grep -A1 "host only" $OUT/host.txt | cut -c1-160
PTXCONFORM_CACHE=/tmp/cache-r $P run -q --devices 0 --out /tmp/r1 cases > $OUT/corpus.txt 2>&1; tail -3 $OUT/corpus.txt | cut -c1-300
python3 .dev/probe/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json | tee $OUT/cmp.txt
