# call 5: the same mutants campaign again, its minimized regressions kept; each run three times and under the other builds
# .dev/m/mut.xz: the stripped release build with --features mutants of the commit named
mkdir -p /tmp/bin && xz -dc .dev/m/mut.xz > /tmp/bin/mut && chmod +x /tmp/bin/mut
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/mut
mkdir -p $OUT/reg
PTXCONFORM_CACHE=/tmp/c-m $P fuzz --mutants --seed 7 --config mixed --trap-budget 0.25 --seconds 60 --out /tmp/mc --regressions $OUT/reg > $OUT/log5.txt 2>&1
grep -E "^done|^finding" $OUT/log5.txt | cut -c1-250; ls $OUT/reg
for f in $OUT/reg/*.yaml; do for i in 1 2 3; do $P run --devices 0 --attribute all --out /tmp/rr-$i $f > /tmp/r.txt 2>&1; grep -iE "trap|mispred|pass|fail|undefined|culprit|silicon|compiler" /tmp/r.txt | head -8 | cut -c1-300; done; cp /tmp/r.txt $OUT/run-$(basename $f .yaml).txt; done
