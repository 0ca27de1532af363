# session 2026-11-30 call 8 (nvidia-h200): corpus verdicts with 08782e3; fuzz A/B 554b14b (base) against 08782e3 (new)
mkdir -p /tmp/bin && for b in base new; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
PTXCONFORM_CACHE=/tmp/c-corpus /tmp/bin/new run -q --devices 0 --out /tmp/r1 cases > $OUT/corpus.txt 2>&1; tail -2 $OUT/corpus.txt | cut -c1-300; python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-28-a6a82df/summary.json /tmp/r1/summary.json | tail -5
g() { tag=$1; bin=$2; seed=$3; shift 3; env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt python3 .dev/carry/cpuprof.py /tmp/bin/$bin fuzz --config legal --seed $seed --seconds 20 --out /tmp/f-$tag "$@" > /tmp/cpu-$tag.txt 2>&1; echo "== $tag $bin seed $seed: $(grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100) | $(grep -h '^sustained' $OUT/fz-$tag.txt | cut -c1-40) | $(head -1 /tmp/cpu-$tag.txt | sed 's/.*rusage) //')"; }
for seed in 0 1; do g b$seed base $seed; g n$seed new $seed; done
