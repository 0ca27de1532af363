# call 1 (nvidia-h200, 16 cores): where the CPU goes per program; modules a core 1 vs 3; K 64 vs 80
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc; lscpu | grep -E "Model name|Thread|Core|Socket"
$P bench --reference-only --only shapes --cases 16384 --naive 0 --fuzz-seconds 0 --out $OUT/ref.json > $OUT/ref.txt 2>&1; grep -A8 "^fixed" $OUT/ref.txt | cut -c1-75
PTXCONFORM_CACHE=/tmp/c-host $P bench --only fuzz-host --fuzz-mixes all --fuzz-seconds 15 --out $OUT/host.json > $OUT/host.txt 2>&1; grep -A2 "^fuzz mix" $OUT/host.txt
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt python3 .dev/carry/cpuprof.py $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/cpu-$tag.txt 2>&1; echo "== $tag seed $seed $* mpc ${PTXCONFORM_MPC:-3}"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-110; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' $OUT/vm-$tag.txt; head -12 $OUT/cpu-$tag.txt; }
S=6 g warm 3 >/dev/null
g base 0
PTXCONFORM_MPC=1 g mpc1 0
g k80 0 --values-per-shape 80
PTXCONFORM_MPC=1 g mpc1b 1
g base1 1
