# call 2 (nvidia-h200, 16 cores): 0e61a16 (base) against 2b0b8ae (new: judge slices), modules a core 1 vs 3, bench fuzz row CPU columns
mkdir -p /tmp/bin && for b in base new; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
g() { tag=$1; bin=$2; seed=$3; shift 3; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt python3 .dev/carry/cpuprof.py /tmp/bin/$bin fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/cpu-$tag.txt 2>&1; echo "== $tag $bin seed $seed $* mpc ${PTXCONFORM_MPC:-3}"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-110; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' $OUT/vm-$tag.txt; head -5 $OUT/cpu-$tag.txt; }
S=6 g warm new 3 >/dev/null
g b0 base 0
g n0 new 0
PTXCONFORM_MPC=1 g n0m1 new 0
g b1 base 1
g n1 new 1
PTXCONFORM_MPC=1 g n1m1 new 1
PTXCONFORM_CACHE=/tmp/c-bench /tmp/bin/new bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1; grep -A2 "^fuzz mix" $OUT/bench-fuzz.txt
