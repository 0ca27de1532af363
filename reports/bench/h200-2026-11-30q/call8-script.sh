# call 8 (2026-11-30q): the corpus live on the final model (H30, H31), against the baseline
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
timeout 150 $P run --devices 0 --out /tmp/corp cases > $OUT/corpus.txt 2>&1; tail -3 $OUT/corpus.txt | cut -c1-200
python3 .dev/carry/cmp.py reports/baseline/h200-2026-11-30-59a14fa/summary.json /tmp/corp/summary.json | tee $OUT/corpus-cmp.txt
