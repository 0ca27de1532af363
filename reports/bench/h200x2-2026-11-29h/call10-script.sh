# call 10 (nvidia-h200): where a request's supervisor time goes (temporary XX_SUP lines per request)
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
$P fuzz --config legal --seed 3 --seconds 5 --out /tmp/f-warm > /dev/null 2>&1
env XX_SUP=1 $P fuzz --config legal --seed 0 --seconds 15 --out /tmp/f-sup > $OUT/fz-sup.txt 2> $OUT/sup.txt; echo rc $?
grep -h '^done' $OUT/fz-sup.txt | cut -c1-100; grep -h timing $OUT/fz-sup.txt | cut -c1-400
python3 - $OUT/sup.txt <<'PY'
import sys,re
L=[list(map(float,re.findall(r'[\d.]+',l))) for l in open(sys.argv[1]) if l.startswith('XX grp')]
n=len(L); k=["jobs/req","send","first","jobs","wall","gaps","tail","total","nmods","modbytes"]
tot=[sum(x[i] for x in L) for i in range(10)]
print(n,"requests;", ", ".join("%s %.0f"%(k[i],tot[i]) for i in range(10)))
j=tot[0]
print("per job (us): send %.0f first %.0f jobs %.0f (worker wall %.0f) gaps %.0f tail %.0f total %.0f; module bytes per request %.0f KB"%(tot[1]/j,tot[2]/j,tot[3]/j,tot[4]/j,tot[5]/j,tot[6]/j,tot[7]/j,tot[9]/n/1e3))
PY
