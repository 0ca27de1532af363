# call 3 (nvidia-h200-x4): blocks of 1,024 a thread (65,536 on 64 threads): the devices row, fuzz on 1/2/4 GPUs, one GPU with the old 16,384
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc; grep MemAvailable /proc/meminfo
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-120; awk 'NR>3{u+=$13+$14; n++} END{printf "cpu busy %.0f%%\n", u/n}' $OUT/vm-$tag.txt; }
S=6 g warm 3 --devices 0,1 >/dev/null
$P bench --only devices --devices 0,1 --fuzz-seconds 30 --out $OUT/bench-devices.json > $OUT/bench-devices.txt 2>&1; echo "== bench devices rc $?"; grep -A3 "^devices" $OUT/bench-devices.txt | cut -c1-150
g one 0 --devices 0
g two 0 --devices 0,1
g four 0 --devices 0,1,2,3
g one16k 0 --devices 0 --batch 16384
