# session 2026-11-30 call 4 (nvidia-h200): one lane against two lanes (two workers) on one GPU
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-30} > /tmp/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt python3 .dev/carry/cpuprof.py $P fuzz --config legal --seed $seed --seconds ${S:-30} --out /tmp/f-$tag "$@" > $OUT/cpu-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done|^sustained' $OUT/fz-$tag.txt | cut -c1-130; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' /tmp/vm-$tag.txt; head -6 $OUT/cpu-$tag.txt; }
g one0 1 --devices 0
g two0 1 --devices 0,0
g one1 1 --devices 0
g two1 1 --devices 0,0
