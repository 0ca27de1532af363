# session 2026-11-30 call 2 (nvidia-h200): values per shape 64 / 80 / 96 / 72, 8f13fba
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > /tmp/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=/tmp/fz-$tag.txt python3 .dev/carry/cpuprof.py $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > /tmp/cpu-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' /tmp/fz-$tag.txt | cut -c1-110; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' /tmp/vm-$tag.txt; head -1 /tmp/cpu-$tag.txt; cp /tmp/fz-$tag.txt $OUT/; }
S=6 g warm 3 >/dev/null
g k64s0 0 --values-per-shape 64
g k80s0 0 --values-per-shape 80
g k64s1 1 --values-per-shape 64
g k80s1 1 --values-per-shape 80
g k96s0 0 --values-per-shape 96
g k72s0 0 --values-per-shape 72
g k80s0b 0 --values-per-shape 80
cat /tmp/fz-k64s0.txt | tail -30
