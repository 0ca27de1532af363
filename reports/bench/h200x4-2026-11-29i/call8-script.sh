# call 8 (nvidia-h200-x4): the kept change (pools of at most 32 threads by default, blocks of 1,024 a thread): the devices row, one GPU and two, the corpus
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' $OUT/vm-$tag.txt; }
S=4 g warm 3 --devices 0,1 >/dev/null
$P bench --only devices --devices 0,1 --fuzz-seconds 30 --out $OUT/bench-devices.json > $OUT/bench-devices.txt 2>&1; echo "== bench devices rc $?"; grep -E "threads|^devices|^all" $OUT/bench-devices.txt | cut -c1-150
g one 0 --devices 0
g two 0 --devices 0,1
SECONDS=0; $P run -q --devices 0 --out /tmp/r1 cases > $OUT/corpus.txt 2>&1; echo "corpus rc $? in ${SECONDS} s"; tail -1 $OUT/corpus.txt | cut -c1-200
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json | tail -4
