source .dev/probe/setup.sh
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --seed $seed --seconds ${S:-30} --out /tmp/f-$tag "$@" > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h -E "timing|^wall|^predicted" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//"; }
S=8 g warm 3 --config legal >/dev/null; rm -f $OUT/*warm*
g legal0 0 --config legal
g legal1 1 --config legal
g mixed0 0 --config mixed --trap-budget 0.25
$P bench --only fuzz --out $OUT/bench.json > $OUT/bench.txt 2>&1; grep -v "^coverage" $OUT/bench.txt | tail -10
