# session 2026-11-30 call 3 (nvidia-h200): 60 s campaigns, with the rate after the first block
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc
PTXCONFORM_CACHE=/tmp/c-bench $P bench --only fuzz --fuzz-mixes all --fuzz-seconds 60 --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1; grep -A4 "^fuzz mix" $OUT/bench-fuzz.txt
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-60} > /tmp/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt python3 .dev/carry/cpuprof.py $P fuzz --config legal --seed $seed --seconds ${S:-60} --out /tmp/f-$tag "$@" > $OUT/cpu-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done|^sustained|^wall|timing' $OUT/fz-$tag.txt | cut -c1-400; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' /tmp/vm-$tag.txt; head -8 $OUT/cpu-$tag.txt; }
g k64s1 1
g k72s1 1 --values-per-shape 72
