# call 1 (nvidia-h200-x2): where the host's CPU goes, thread by thread, K = 256
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc; nvidia-smi -L
for d in 0 0,1; do
  n=fuzz-$(echo $d | tr , _)
  PTXCONFORM_CACHE=/tmp/c-$n bash .dev/carry/prof.sh $n $P fuzz --config legal --seconds 30 --seed 3 --devices $d --values-per-shape 256 --out /tmp/f-$n
  grep -E "^done|^wall|timing" $OUT/$n.txt | cut -c1-900
done
PTXCONFORM_CACHE=/tmp/c-host bash .dev/carry/prof.sh host $P bench --only fuzz-host --fuzz-seconds 30 --fuzz-values-per-shape 256 --fuzz-mixes all --out $OUT/host.json
grep -v coverage $OUT/host.txt | cut -c1-300
