# probe: ptxas start-up and kernel cost; mimalloc THP on/off in 30 s campaigns
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; nproc; lscpu | grep -E "Model name|Thread|Core|Socket|MHz" 
python3 - <<'PY'
import subprocess,time
P="/usr/local/cuda/bin/ptxas"
for f in ["empty","m6"]:
    ts=[]
    for _ in range(8):
        s=time.time();subprocess.run([P,"-arch=sm_90a","-O3",f".dev/carry/ptx/{f}.ptx","-o","/tmp/t.cubin"],check=True);ts.append(time.time()-s)
    print(f, "min %.1f ms median %.1f ms"%(1000*min(ts),1000*sorted(ts)[4]))
PY
i=0; for v in d 0 d 0; do i=$((i+1))
  a=$(grep thp_fault_alloc /proc/vmstat | awk '{print $2}')
  if [ $v = d ]; then E=""; else E="MIMALLOC_ALLOW_THP=0"; fi
  env $E PTXCONFORM_CACHE=/tmp/c-$v-$RANDOM $P fuzz --config legal --seed 0 --seconds 30 --out /tmp/f-$RANDOM > $OUT/fz-$i-thp$v.txt 2>&1 & pid=$!
  last=""; while kill -0 $pid 2>/dev/null; do l=$(cut -d' ' -f10-17 /proc/$pid/stat 2>/dev/null); [ -n "$l" ] && last=$l; sleep 0.5; done
  b=$(grep thp_fault_alloc /proc/vmstat | awk '{print $2}')
  echo "thp=$v faults(min cmin maj cmaj ut st cut cst)=$last thp_fault_alloc=$((b-a))"
  grep -E "^done|^sustained" $OUT/fz-$i-thp$v.txt | cut -c1-150
done
