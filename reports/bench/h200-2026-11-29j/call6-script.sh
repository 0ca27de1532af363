# call 6 (nvidia-h200-x2): 0f89708; threads a pool 32 (default) / 24 / 16 with one GPU and two
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt python3 .dev/carry/cpuprof.py $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/cpu-$tag.txt 2>&1; echo "== $tag seed $seed $* threads ${RAYON_NUM_THREADS:-default}"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-110; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' $OUT/vm-$tag.txt; head -1 $OUT/cpu-$tag.txt; }
S=6 g warm 3 >/dev/null
g one32 0 --devices 0
g two32 0 --devices 0,1
RAYON_NUM_THREADS=24 g one24 0 --devices 0
RAYON_NUM_THREADS=24 g two24 0 --devices 0,1
RAYON_NUM_THREADS=16 g two16 0 --devices 0,1
g one32b 0 --devices 0
