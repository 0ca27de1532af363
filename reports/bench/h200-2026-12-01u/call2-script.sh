# call 2 (nvidia-h200): generator 10 and the tensor reading of A-BULK-DST-OTHER-CTA-HW (bfaeb14):
# mixed campaigns, tensor loads alone (seed 61) and every family (seed 62), then the corpus live
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/p && chmod +x /tmp/bin/p
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/p
mkdir -p /tmp/logs
run() { s=$1; shift; mkdir -p /tmp/reg$s
  PTXCONFORM_CACHE=/tmp/c-s $P fuzz --seed $s "$@" --out /tmp/ms$s --regressions /tmp/reg$s > /tmp/logs/camp$s.txt 2>&1
  grep -E "^done|^finding|^NEW|^predicted|^sustained|^coverage|^wall" /tmp/logs/camp$s.txt | cut -c1-400 | tail -14 | tee $OUT/camp$s.txt
  grep -E "bulk.dst_not_executing_cta|A-BULK-DST-OTHER-CTA-HW" /tmp/ms$s/campaign-coverage.md | tee -a $OUT/camp$s.txt
  ls /tmp/reg$s; cp -r /tmp/reg$s $OUT/ 2>/dev/null; }
run 61 --config mixed --families tensor --trap-budget 0.25 --seconds 60
run 62 --config mixed --trap-budget 0.25 --seconds 45
( time $P run -q --devices 0 --out /tmp/r1 cases ) > /tmp/logs/corpus.txt 2>&1
tail -6 /tmp/logs/corpus.txt | tee $OUT/corpus.txt
python3 -c "
import json
s=json.load(open('/tmp/r1/summary.json'))
json.dump({r['case']:r['verdict'] for r in s['results']}, open('$OUT/corpus-verdicts.json','w'), indent=0, sort_keys=True)"
