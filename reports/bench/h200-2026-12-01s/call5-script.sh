# call 5 (nvidia-h200-x2): the stages that work ahead of need (the campaign's drawing, compiling
# ahead and its ptxas runs) under SCHED_IDLE instead of nice 10, K = 256, 20 s, alternating
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
idle() { # SCHED_IDLE for the generate and compile threads of process $1 while it lives
  while kill -0 $1 2>/dev/null; do
    for t in /proc/$1/task/*; do
      case "$(cat $t/comm 2>/dev/null)" in generate-*|compile-*) chrt -i -p 0 ${t##*/} >/dev/null 2>&1;; esac
    done
    sleep 0.3
  done
}
run() { # run NAME DEVICES MODE
  PTXCONFORM_CACHE=/tmp/c-$1 $P fuzz --config legal --seconds 20 --seed 3 --devices $2 --values-per-shape 256 --out /tmp/f-$1 > $OUT/$1.txt 2>&1 &
  pid=$!
  [ "$3" = idle ] && idle $pid &
  wait $pid
  echo "$1: $(grep -E '^done' $OUT/$1.txt | grep -o 'programs [0-9]* ([0-9]*/s')  $(grep -o 'generating and checking.*' $OUT/$1.txt)"
}
run base2 0,1; run idle2 0,1 idle; run base1 0; run idle1 0 idle; run base2b 0,1; run idle2b 0,1 idle
PTXCONFORM_BACKGROUND_NICE=19 run n19-2 0,1
