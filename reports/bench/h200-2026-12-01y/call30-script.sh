# call 30 (nvidia-h200): d = 1bf7509. A legal campaign (seed 7, 20 s) traced, with each thread's
# CPU (the campaign's and its worker's, by thread name) and the host's busy CPUs sampled every
# 50 ms; which profilers the image has.
mkdir -p /tmp/bin && xz -dc .dev/carry/d.xz > /tmp/bin/d && chmod +x /tmp/bin/d
export PTXAS=/usr/local/cuda/bin/ptxas
which perf gdb py-spy strace ltrace 2>&1 | head; ls /usr/local/cuda/bin | head -40 | tr '\n' ' '; echo
python3 .dev/carry/tsampler.py $OUT/threads.txt /tmp/bin/d & S1=$!
python3 .dev/carry/sampler.py $OUT/busy.txt & S2=$!
date +%s.%N > $OUT/start.txt
PTXCONFORM_TRACE=$OUT/trace-d7.json PTXCONFORM_CACHE=/tmp/c-7 timeout 60 /tmp/bin/d fuzz --config legal --seed 7 --seconds 20 --values-per-shape 80 --out /tmp/f7 > $OUT/fuzz-d7.txt 2>&1
kill $S1 $S2; grep -E "^done|^sustained|timing" $OUT/fuzz-d7.txt | cut -c1-400
cd $OUT && tar czf all.tgz *.json *.txt && rm -f *.json *.txt
