# call 7 (nvidia-h200-x4): one GPU against two at the same thread count, 64 (all) and 32 (RAYON_NUM_THREADS), fresh cubin caches, default blocks
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $* threads ${RAYON_NUM_THREADS:-all}"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' $OUT/vm-$tag.txt; }
S=4 g warm 3 --devices 0,1 >/dev/null
RAYON_NUM_THREADS=32 g one32 0 --devices 0
RAYON_NUM_THREADS=32 g two32 0 --devices 0,1
g one64 0 --devices 0
g two64 0 --devices 0,1
RAYON_NUM_THREADS=32 g one32b 1 --devices 0
RAYON_NUM_THREADS=32 g two32b 1 --devices 0,1
