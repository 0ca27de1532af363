# call 7: a 150 s mixed campaign on seed 17 with 76a59ce's model
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs /tmp/reg17
PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed 17 --config mixed --trap-budget 0.25 --seconds 150 --out /tmp/ms --regressions /tmp/reg17 > /tmp/logs/camp17.txt 2>&1
grep -E "^done|^finding|^predicted|^sustained" /tmp/logs/camp17.txt | cut -c1-300 | tail -8 | tee $OUT/camp17.txt; ls /tmp/reg17
tar -C /tmp -cJf $OUT/reg.tar.xz reg17
