# call 1 (nvidia-h200-x2): HEAD (old: a step shared across devices) against lanes (new), one and two GPUs
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nproc
g() { tag=$1; bin=$2; seed=$3; shift 3; (vmstat 1 ${S:-30} > $OUT/vm-$tag.txt &); env PTXCONFORM_XX_TRACE=1 PTXCONFORM_CACHE=/tmp/cache-$tag /tmp/bin/$bin fuzz --config legal --seed $seed --seconds ${S:-30} "$@" --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>$OUT/tr-$tag.txt; echo "== $tag $bin seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-120; grep -h -E "timing|^wall" $OUT/fz-$tag.txt | sed "s/; 0 traps.*to start)//" | cut -c1-260; awk 'NR>3{u+=$13+$14; n++} END{printf "cpu busy %.0f%%\n", u/n}' $OUT/vm-$tag.txt; sleep 1; }
S=8 g warm new 3 --devices 0,1 >/dev/null; rm -f $OUT/*warm*
g new1 new 0 --devices 0
g new2 new 0 --devices 0,1
g new2s1 new 1 --devices 0,1
g new1s1 new 1 --devices 0
SECONDS=0; /tmp/bin/new run -q --devices 0,1 --out /tmp/r2 cases > $OUT/corpus2.txt 2>&1; echo "corpus on two lanes rc $? in ${SECONDS} s"; tail -3 $OUT/corpus2.txt
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r2/summary.json | tail -5
