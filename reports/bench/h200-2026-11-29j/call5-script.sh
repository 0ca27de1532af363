# call 5 (nvidia-h200, 16 cores): corpus verdicts with 0f89708 (new); fuzz A/B 0e61a16 (base) vs new; bench fuzz rows of new
mkdir -p /tmp/bin && for b in base new; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
nproc
PTXCONFORM_CACHE=/tmp/c-corpus /tmp/bin/new run -q --devices 0 --out /tmp/r1 cases > $OUT/corpus.txt 2>&1; tail -3 $OUT/corpus.txt; python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json | tail -5
g() { tag=$1; bin=$2; seed=$3; shift 3; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt python3 .dev/carry/cpuprof.py /tmp/bin/$bin fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/cpu-$tag.txt 2>&1; echo "== $tag $bin seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-110; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' $OUT/vm-$tag.txt; head -1 $OUT/cpu-$tag.txt; }
S=6 g warm new 3 >/dev/null
for seed in 0 1; do g b$seed base $seed; g n$seed new $seed; done
PTXCONFORM_CACHE=/tmp/c-bench /tmp/bin/new bench --only fuzz --fuzz-seconds 10 --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1; grep -A12 "^fuzz mix" $OUT/bench-fuzz.txt
