nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/bin && xz -dc .dev/carry/old.xz > /tmp/bin/old && chmod +x /tmp/bin/old; O=/tmp/bin/old; export PTXAS=/usr/local/cuda/bin/ptxas
f() { tag=$1; bin=$2; seed=$3; shift 3; env PTXCONFORM_CACHE=/tmp/cache-$tag "$@" /usr/bin/time -f "TIME %e s %P cpu %M KB" $bin fuzz --config legal --seed $seed --seconds $S --out /tmp/f-$tag > $OUT/fz-$tag.txt 2>&1; echo "== $tag seed $seed $*"; grep -h -E '^done|TIME' $OUT/fz-$tag.txt | cut -c1-120; grep -h 'timing' $OUT/fz-$tag.txt | sed 's/taking.*to start),//' | cut -c1-260; }
S=8 f warm $O 3 X=1; rm $OUT/fz-warm.txt
S=30
f old0 $O 0 X=1
f old1 $O 1 X=1
