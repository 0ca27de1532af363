# call 11: a 150 s mixed campaign on a fresh seed (11) with the model of d7a877b (the --features mutants build, run without --mutants); its regressions run again twice with attribution
# .dev/m/mut.xz: the stripped release build with --features mutants of d7a877b
mkdir -p /tmp/bin && xz -dc .dev/m/mut.xz > /tmp/bin/mut && chmod +x /tmp/bin/mut
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/mut
mkdir -p $OUT/reg
PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed 11 --config mixed --trap-budget 0.25 --seconds 150 --out /tmp/ms --regressions $OUT/reg > $OUT/log.txt 2>&1
grep -E "^done|^finding|^predicted" $OUT/log.txt | cut -c1-300; ls $OUT/reg
for f in $OUT/reg/*.yaml; do [ -e "$f" ] || continue; python3 - "$f" <<'PY'
import sys
t=open(sys.argv[1]).read(); i=t.find('\n  observed:')
open('/tmp/'+sys.argv[1].split('/')[-1],'w').write(t if i<0 else t[:i]+'\n')
PY
for i in 1 2; do $P run --devices 0 --attribute all --out /tmp/rr /tmp/$(basename $f) > /tmp/r.txt 2>&1; grep -E "^(FAIL|PASS)|attribution" /tmp/r.txt | cut -c1-400 | head -3; python3 -c "
import json;d=json.load(open('/tmp/rr/summary.json'));[print('  ',x['case'],x['verdict'],x.get('detail','')[:200]) for x in d['results']]"; done; done
