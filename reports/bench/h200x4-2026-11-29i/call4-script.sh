# call 4 (nvidia-h200-x4): fewer threads a pool (RAYON_NUM_THREADS) on four lanes and on one, blocks fixed
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $* threads ${RAYON_NUM_THREADS:-all}"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-120; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' $OUT/vm-$tag.txt; }
S=6 g warm 3 --devices 0,1 >/dev/null
g four 0 --devices 0,1,2,3 --batch 65536
RAYON_NUM_THREADS=32 g four32 0 --devices 0,1,2,3 --batch 65536
RAYON_NUM_THREADS=16 g four16 0 --devices 0,1,2,3 --batch 65536
g one 0 --devices 0 --batch 32768
RAYON_NUM_THREADS=16 g one16 0 --devices 0 --batch 32768
RAYON_NUM_THREADS=32 g two32 0 --devices 0,1 --batch 65536
