# call 4 (nvidia-h200-x2): per-thread CPU of one lane against two
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc; which perf || true
g() { tag=$1; shift; (vmstat 1 25 > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt python3 .dev/carry/cpuprof.py $P fuzz --config legal --seed 0 --seconds 22 --out /tmp/f-$tag "$@" > $OUT/cpu-$tag.txt 2>&1; echo "== $tag $*"; head -14 $OUT/cpu-$tag.txt; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; awk 'NR>3{u+=$13+$14; s+=$14; n++} END{printf "cpu busy %.0f%% (system %.0f%%)\n", u/n, s/n}' $OUT/vm-$tag.txt; }
$P fuzz --config legal --seed 3 --seconds 6 --devices 0,1 --out /tmp/f-warm > /dev/null 2>&1
g one --devices 0
g two --devices 0,1
