# session 2026-11-30 call 1 (nvidia-h200): context scheduling auto (spin) vs blocking sync vs yield; CPU by process
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc
g() { tag=$1; seed=$2; shift 2; (vmstat 1 ${S:-20} > /tmp/vm-$tag.txt &); env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=/tmp/fz-$tag.txt python3 .dev/carry/cpuprof.py $P fuzz --config legal --seed $seed --seconds ${S:-20} --out /tmp/f-$tag "$@" > /tmp/cpu-$tag.txt 2>&1; echo "== $tag seed $seed sched ${PTXCONFORM_CTX_SCHED:-auto} $*"; grep -h -E '^done' /tmp/fz-$tag.txt | cut -c1-110; awk 'NR>3{u+=$13+$14; r+=$1; c+=$12; n++} END{printf "cpu busy %.0f%%, runnable %.0f, cs/s %.0f\n", u/n, r/n, c/n}' /tmp/vm-$tag.txt; head -9 /tmp/cpu-$tag.txt; cp /tmp/cpu-$tag.txt $OUT/; }
S=6 g warm 3 >/dev/null
g a0 0
PTXCONFORM_CTX_SCHED=4 g b0 0
g a1 1
PTXCONFORM_CTX_SCHED=4 g b1 1
PTXCONFORM_CTX_SCHED=2 g y0 0
PTXCONFORM_CTX_SCHED=4 g b0x 0
g a0x 0
