# call 46 (nvidia-h200): b = 219e6b8, n = 831fdc1 (a program's fingerprint by foldhash). After a 5 s
# warm-up, the legal row (20 s, round 1's programs each time) alternating b and n three times on
# one start, then n for 60 s.
mkdir -p /tmp/bin && for x in b n; do xz -dc .dev/carry/$x.xz > /tmp/bin/$x && chmod +x /tmp/bin/$x; done
export PTXAS=/usr/local/cuda/bin/ptxas
timeout 60 /tmp/bin/n bench --only fuzz --fuzz-mixes all --fuzz-seconds 5 --out /tmp/w.json > $OUT/warmup.txt 2>&1
for i in 1 2 3; do for x in b n; do
  timeout 120 /tmp/bin/$x bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$x-$i.json > $OUT/bench-$x-$i.txt 2>&1
  grep -E "^all|by thread" $OUT/bench-$x-$i.txt | sed "s/^/$x$i /" | cut -c1-230
done; done
timeout 150 /tmp/bin/n bench --only fuzz --fuzz-mixes all --fuzz-seconds 60 --out $OUT/bench-n-60.json > $OUT/bench-n-60.txt 2>&1
grep -E "^all|by thread|^host" $OUT/bench-n-60.txt | cut -c1-230
