# call 1: values per shape (K) and block size (--batch), 30 s campaigns, f0173b8
# .dev/carry/new.xz: the stripped release build of the commit named
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc; lscpu | grep -E "Model name|MHz" | head -2
i=0; for kb in 64:16384 80:16384 80:32768 64:32768 80:16384 64:16384; do i=$((i+1)); k=${kb%:*}; b=${kb#*:}
  /usr/bin/time -f "cpu %U user %S sys %e wall" env PTXCONFORM_CACHE=/tmp/c-$i $P fuzz --config legal --seed $((i%2)) --seconds 30 --values-per-shape $k --batch $b --out /tmp/f-$i > $OUT/fz-$i-k$k-b$b.txt 2>&1
  echo "$i K=$k batch=$b $(grep -E '^done' $OUT/fz-$i-k$k-b$b.txt | cut -c1-100)"; grep -E '^sustained|^wall|^cpu' $OUT/fz-$i-k$k-b$b.txt | cut -c1-120
done
