# call 4 (nvidia-h200, 16 cores): modules cut by kernel count (as committed) vs by text length (PTXCONFORM_BYCOST), modules a core 1/2/3
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc; $P bench --reference-only --only shapes --cases 8192 --naive 0 --fuzz-seconds 0 --out $OUT/ref.json > $OUT/ref.txt 2>&1; grep -A2 "^fixed" $OUT/ref.txt | cut -c1-75
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt python3 .dev/carry/cpuprof.py $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/cpu-$tag.txt 2>&1; echo "== $tag seed $seed $* mpc ${PTXCONFORM_MPC:-3} bycost ${PTXCONFORM_BYCOST:-no}"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-110; grep -h -o "[0-9]* modules compiled" $OUT/fz-$tag.txt; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' $OUT/vm-$tag.txt; head -1 $OUT/cpu-$tag.txt; }
S=6 g warm 3 >/dev/null
for seed in 0 1; do
g c3-$seed $seed
PTXCONFORM_MPC=1 g c1-$seed $seed
PTXCONFORM_BYCOST=1 g b3-$seed $seed
PTXCONFORM_BYCOST=1 PTXCONFORM_MPC=2 g b2-$seed $seed
PTXCONFORM_BYCOST=1 PTXCONFORM_MPC=1 g b1-$seed $seed
done
