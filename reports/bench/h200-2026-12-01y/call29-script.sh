# call 29 (nvidia-h200): z = 4c96b83 (before), d = 1bf7509 (the next block's first step made
# ready beside a block's first part). A mixed campaign (seed 67, 45 s, trap budget 0.25)
# alternating, twice each.
mkdir -p /tmp/bin && for b in z d; do xz -dc .dev/carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
export PTXAS=/usr/local/cuda/bin/ptxas
for r in 1 2; do for b in d z; do
  rm -rf /tmp/reg /tmp/ms; mkdir -p /tmp/reg
  PTXCONFORM_CACHE=/tmp/c-67-$b timeout 100 /tmp/bin/$b fuzz --seed 67 --config mixed --trap-budget 0.25 --seconds 45 --out /tmp/ms --regressions /tmp/reg > $OUT/camp67-$b-$r.txt 2>&1
  echo "== $b $r"; grep -E "^done|^predicted" $OUT/camp67-$b-$r.txt | cut -c1-330; ls /tmp/reg
done; done
cd $OUT && tar czf all.tgz *.txt && rm -f *.txt
