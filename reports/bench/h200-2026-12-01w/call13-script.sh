# call 13 (nvidia-h200): e7f1206 (the session's final code), the all-families fuzz row (20 s)
# with the stages ahead of need at nice +10 (default) and +19, alternating, twice each.
mkdir -p /tmp/bin && xz -dc .dev/carry/f.xz > /tmp/bin/f && chmod +x /tmp/bin/f
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do for n in 10 19; do
  PTXCONFORM_BACKGROUND_NICE=$n timeout 100 /tmp/bin/f bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-n$n-$r.json > $OUT/bench-n$n-$r.txt 2>&1
  echo "== nice $n $r"; grep -E "^all" $OUT/bench-n$n-$r.txt | cut -c1-150
done; done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
