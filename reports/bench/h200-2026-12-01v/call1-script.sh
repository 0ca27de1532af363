# call 1 (nvidia-h200): ptxas runs of several files (one per PTX version) and fewer, larger
# modules ahead of need, against HEAD acf84de, alternating on one machine start
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && xz -dc .dev/carry/head.xz > /tmp/bin/head && chmod +x /tmp/bin/*
export PTXAS=/usr/local/cuda/bin/ptxas
nproc; uptime
run() { # name binary [env]
  local n=$1 b=$2; shift 2
  env "$@" timeout 200 /tmp/bin/$b bench --only fuzz --fuzz-mixes all --fuzz-seconds 20 --out $OUT/bench-$n.json > $OUT/bench-$n.txt 2>&1
  echo "== $n"; grep -E "^all|by thread" $OUT/bench-$n.txt | cut -c1-220
}
run head-1 head
run new-1 new
run head-2 head
run new-2 new
run new-mpc2 new PTXCONFORM_TMP_MPC=2
run new-3 new
timeout 150 /tmp/bin/new bench --only corpus --out $OUT/bench-corpus-new.json > $OUT/bench-corpus-new.txt 2>&1
echo "== corpus"; tail -5 $OUT/bench-corpus-new.txt | cut -c1-250
