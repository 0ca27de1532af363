# call 5 (2026-11-30q): the seed-40 campaign's open finding (a .shared::cluster copy into the executing CTA
# in a cluster launch, trapped LaunchFailed where the model predicts completes or hangs), twice, first recorded
# and attributed
mkdir -p /tmp/bin /tmp/logs && xz -dc .dev/carry/mut7.xz > /tmp/bin/m7 && chmod +x /tmp/bin/m7
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/m7
cp .dev/carry/open40.yaml $OUT/open40.yaml
timeout 120 $P run --devices 0 --record --attribute all --out /tmp/o1 $OUT/open40.yaml > $OUT/run1.txt 2>&1
cp .dev/carry/open40.yaml /tmp/open40.yaml; timeout 60 $P run --devices 0 --out /tmp/o2 /tmp/open40.yaml > $OUT/run2.txt 2>&1
grep -h "open.s40\|attribution" $OUT/run1.txt $OUT/run2.txt | cut -c1-400
