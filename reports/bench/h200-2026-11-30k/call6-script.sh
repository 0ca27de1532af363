# session 2026-11-30 call 6 (nvidia-h200-x2): ac34557, one GPU against two over 60 s each, with the rates after the first block
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
nproc
PTXCONFORM_CACHE=/tmp/c-dev $P bench --only devices --devices 0,1 --fuzz-seconds 60 --out $OUT/bench-devices.json > $OUT/bench-devices.txt 2>&1; tail -8 $OUT/bench-devices.txt
python3 -c "
import json; r=json.load(open('$OUT/bench-devices.json')); d=r['devices']
print({k:v for k,v in d.items() if not isinstance(v,(dict,list))})
for k in ('one','all'):
  z=d.get(k) or {}
  print(k, z.get('programs_per_s'), z.get('sustained_programs_per_s'), z.get('warmup_s'), z.get('shapes_per_s'))
"
