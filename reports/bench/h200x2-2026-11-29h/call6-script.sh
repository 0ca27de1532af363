# call 6 (nvidia-h200, 16 cores): the final binary on one GPU: fuzz, the bench's fuzz rows (all), the corpus
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nproc
g() { tag=$1; seed=$2; shift 2; env PTXCONFORM_CACHE=/tmp/cache-$tag $P fuzz --config legal --seed $seed --seconds ${S:-30} --out /tmp/f-$tag "$@" > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-120; }
S=8 g warm 3 >/dev/null
g legal0 0
g legal1 1
$P bench --only fuzz --fuzz-mixes all --fuzz-seconds 10 --out $OUT/bench-fuzz.json > $OUT/bench-fuzz.txt 2>&1; echo "== bench rc $?"; grep -A3 "^fuzz mix" $OUT/bench-fuzz.txt | cut -c1-140
SECONDS=0; $P run -q --devices 0 --out /tmp/r1 cases > $OUT/corpus.txt 2>&1; echo "corpus rc $? in ${SECONDS} s"; tail -2 $OUT/corpus.txt | cut -c1-300
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json | tail -5
