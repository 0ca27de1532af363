# call 3 (two H200s of one host): a fixed host workload as calibration; the devices row at K = 80 (9457ab8)
# .dev/carry/new.xz: the stripped release build of the commit named
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc; grep -m1 "model name" /proc/cpuinfo; grep -m1 "cpu MHz" /proc/cpuinfo; lscpu | grep -E "Thread|Core|Socket"
PTXCONFORM_CACHE=/tmp/c-h $P bench --only fuzz-host --fuzz-programs 65536 --fuzz-mixes all --out $OUT/bench-host.json > $OUT/bench-host.txt 2>&1; grep -A1 "^fuzz mix" $OUT/bench-host.txt | cut -c1-200
PTXCONFORM_CACHE=/tmp/c-d $P bench --only devices --devices 0,1 --fuzz-seconds 45 --out $OUT/bench-devices.json > $OUT/bench-devices.txt 2>&1; grep -A4 "^fuzz mix" $OUT/bench-devices.txt | cut -c1-230; tail -3 $OUT/bench-devices.txt
