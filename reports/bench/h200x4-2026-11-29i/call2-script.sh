# call 2 (nvidia-h200-x4): a502682, blocks scaled with the lanes (--batch) against the default
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > $OUT/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-120; awk 'NR>3{u+=$13+$14; n++} END{printf "cpu busy %.0f%%\n", u/n}' $OUT/vm-$tag.txt; }
S=6 g warm 3 --devices 0,1 >/dev/null
g one 0 --devices 0
g two 0 --devices 0,1
g two32k 0 --devices 0,1 --batch 32768
g four64k 0 --devices 0,1,2,3 --batch 65536
g one32k 0 --devices 0 --batch 32768
