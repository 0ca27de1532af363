# call 5 (nvidia-h200, 16 cores): thread counts of the pools (temporary PTXCONFORM_POOL_<stage> knob), one GPU, blocks of 16,384
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc; lscpu | grep -E "Model name|Thread|Core"
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $* threads ${RAYON_NUM_THREADS:-all} gen ${PTXCONFORM_POOL_generate:-} ref ${PTXCONFORM_POOL_reference:-}"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' $OUT/vm-$tag.txt; }
S=6 g warm 3 >/dev/null
g base 0 --batch 16384
RAYON_NUM_THREADS=12 g t12 0 --batch 16384
RAYON_NUM_THREADS=8 g t8 0 --batch 16384
PTXCONFORM_POOL_generate=4 g gen4 0 --batch 16384
PTXCONFORM_POOL_generate=8 g gen8 0 --batch 16384
PTXCONFORM_POOL_reference=8 g ref8 0 --batch 16384
g base2 0 --batch 16384
