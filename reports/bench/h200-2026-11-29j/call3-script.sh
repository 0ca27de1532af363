# call 3 (nvidia-h200-x2): cc4b2c1 (+ modules-a-core knob); reference threads worth at 32; one GPU vs two
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc; lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node\(s\)"
$P bench --reference-only --only shapes --cases 16384 --naive 0 --fuzz-seconds 0 --out $OUT/ref.json > $OUT/ref.txt 2>&1; grep -A6 "^fixed" $OUT/ref.txt | cut -c1-75
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt python3 .dev/carry/cpuprof.py $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/cpu-$tag.txt 2>&1; echo "== $tag seed $seed $* mpc ${PTXCONFORM_MPC:-3}"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-110; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' $OUT/vm-$tag.txt; head -6 $OUT/cpu-$tag.txt; }
S=6 g warm 3 >/dev/null
g one0 0 --devices 0
g two0 0 --devices 0,1
g one1 1 --devices 0
g two1 1 --devices 0,1
PTXCONFORM_MPC=1 g two0m1 0 --devices 0,1
PTXCONFORM_CACHE=/tmp/c-bench $P bench --only devices --devices 0,1 --fuzz-seconds 20 --out $OUT/bench-devices.json > $OUT/bench-devices.txt 2>&1; grep -B1 -A3 "^devices\|^fuzz mix" $OUT/bench-devices.txt | cut -c1-200
