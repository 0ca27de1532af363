# call 1 (nvidia-h200-x4): a502682 on a 64-core host with four H200s: the devices row, fuzz on 1/2/4 GPUs, the corpus on two lanes
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nproc; lscpu | grep -E "Model name|Socket|Thread|Core|MHz" 
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-120; awk 'NR>3{u+=$13+$14; n++} END{printf "cpu busy %.0f%%\n", u/n}' $OUT/vm-$tag.txt; }
S=6 g warm 3 --devices 0,1 >/dev/null
$P bench --only devices --devices 0,1 --fuzz-seconds 30 --out $OUT/bench-devices.json > $OUT/bench-devices.txt 2>&1; echo "== bench devices rc $?"; grep -A3 "^devices" $OUT/bench-devices.txt | cut -c1-150
g one 0 --devices 0
g two 0 --devices 0,1
g four 0 --devices 0,1,2,3
SECONDS=0; $P run -q --devices 0,1 --out /tmp/r2 cases > $OUT/corpus2.txt 2>&1; echo "corpus two lanes rc $? in ${SECONDS} s"; tail -2 $OUT/corpus2.txt | cut -c1-300
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r2/summary.json | tail -5
