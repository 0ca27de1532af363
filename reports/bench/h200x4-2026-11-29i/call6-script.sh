# call 6 (nvidia-h200, 16 cores): the reference pool's threads (temporary PTXCONFORM_POOL_reference), repeated, one GPU, blocks of 16,384
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $* ref ${PTXCONFORM_POOL_reference:-all}"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' $OUT/vm-$tag.txt; }
S=4 g warm 3 >/dev/null
g base 0 --batch 16384
PTXCONFORM_POOL_reference=8 g ref8 0 --batch 16384
PTXCONFORM_POOL_reference=4 g ref4 0 --batch 16384
PTXCONFORM_POOL_reference=12 g ref12 0 --batch 16384
PTXCONFORM_POOL_reference=8 g ref8b 0 --batch 16384
g base2 0 --batch 16384
PTXCONFORM_POOL_reference=6 g ref6 0 --batch 16384
