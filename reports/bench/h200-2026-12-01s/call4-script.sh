# call 4 (nvidia-h200-x2): each lane on pools of its own (PTXCONFORM_LANE_POOLS, an experiment), K = 256, 20 s
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
run() { # run NAME DEVICES [LANE_POOLS]
  PTXCONFORM_LANE_POOLS=$3 PTXCONFORM_CACHE=/tmp/c-$1 $P fuzz --config legal --seconds 20 --seed 3 --devices $2 --values-per-shape 256 --out /tmp/f-$1 > $OUT/$1.txt 2>&1
  echo "$1: $(grep -E '^done' $OUT/$1.txt | grep -o 'programs [0-9]* ([0-9]*/s')"
}
run base1 0; run base2 0,1; run lp32 0,1 32; run lp16 0,1 16; run base2b 0,1; run lp32b 0,1 32; run lp8 0,1 8
