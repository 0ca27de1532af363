# call 18 (nvidia-h200): a211216 (small pages) plus uncommitted variables: the legal block
# (PTXCONFORM_BLOCK: default 16,384 on 16 threads, 32,768, 65,536), the legal row alternating,
# twice each.
mkdir -p /tmp/bin && xz -dc .dev/carry/b.xz > /tmp/bin/b && chmod +x /tmp/bin/b
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do for n in d 32768 65536; do
  if [ $n = d ]; then unset PTXCONFORM_BLOCK; else export PTXCONFORM_BLOCK=$n; fi
  timeout 100 /tmp/bin/b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-b$n-$r.json > $OUT/bench-b$n-$r.txt 2>&1
  echo "== block $n $r"; grep -E "^all" $OUT/bench-b$n-$r.txt | cut -c1-150
done; done
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
