# call 9 (nvidia-h200-x2): the mixed config (traps, hangs, trap budget) on two lanes, final binary
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
$P fuzz --config mixed --trap-budget 0.25 --seed 0 --seconds 20 --devices 0,1 --out /tmp/f-mixed > $OUT/fz-mixed2.txt 2>&1; echo "rc $?"
grep -h -E '^done|^predicted|^wall|^finding|error' $OUT/fz-mixed2.txt | cut -c1-300
grep -h timing $OUT/fz-mixed2.txt | sed 's/(setup.*read back [0-9.]*s)//' | cut -c1-330
