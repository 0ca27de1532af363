# call 45 (nvidia-h200): m = 6a7c2b2. The legal row and the tensor mix, 20 s, three rounds each.
mkdir -p /tmp/bin && xz -dc .dev/carry/m.xz > /tmp/bin/m && chmod +x /tmp/bin/m
export PTXAS=/usr/local/cuda/bin/ptxas
timeout 400 /tmp/bin/m bench --only fuzz --fuzz-mixes all --fuzz-mixes tensor --fuzz-seconds 20 --fuzz-rounds 3 --out $OUT/bench-m-rounds.json > $OUT/bench-m-rounds.txt 2>&1
grep -E "^all|^tensor|median|^host" $OUT/bench-m-rounds.txt | cut -c1-200
