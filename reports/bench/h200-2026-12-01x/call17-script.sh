# call 17 (nvidia-h200): 78635c0 (small pages) plus an uncommitted variable, the blocks drawn
# ahead (PTXCONFORM_DRAWN_AHEAD: 2, the default, 3 and 4), the legal row alternating, twice each;
# ptxas alone on a set of fuzz kernels (one process, then 16 at once).
mkdir -p /tmp/bin && xz -dc .dev/carry/a.xz > /tmp/bin/a && chmod +x /tmp/bin/a
export PTXAS=/usr/local/cuda/bin/ptxas
cd .dev/carry/kern; fs=$(grep -l "target sm_90$" *.ptx | head -40); n=$(cat $fs | grep -c '\.entry')
s=$(date +%s.%N); for f in $fs; do $PTXAS -arch=sm_90 -O3 $f -o /tmp/x.cubin 2>/dev/null; done; e=$(date +%s.%N)
python3 -c "print('ptxas serial: $n kernels', ($e-$s)*1000/$n, 'ms/kernel')" > $OUT/host.txt
s=$(date +%s.%N); for j in $(seq 16); do (for f in $fs; do $PTXAS -arch=sm_90 -O3 $f -o /tmp/x$j.cubin 2>/dev/null; done) & done; wait; e=$(date +%s.%N)
python3 -c "print('ptxas 16 at once:', $n*16, 'kernels', ($e-$s)*1000/$n, 'ms of wall a kernel of each process')" >> $OUT/host.txt
cd - >/dev/null
for r in 1 2; do for a in 2 3 4; do
  PTXCONFORM_DRAWN_AHEAD=$a timeout 100 /tmp/bin/a bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-a$a-$r.json > $OUT/bench-a$a-$r.txt 2>&1
  echo "== ahead $a $r"; grep -E "^all" $OUT/bench-a$a-$r.txt | cut -c1-150
done; done
cat $OUT/host.txt
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
