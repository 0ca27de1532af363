# call 2 (2026-11-30q): the mutants campaign (mixed, trap budget 0.25, 60 s, K = 80) on generator 5 (c1e6c7e)
# and generator 6 (its tree with the im2col-corner change), seeds 7 and 8, alternating; each scored
mkdir -p /tmp/bin /tmp/logs && for v in 5 6; do xz -dc .dev/carry/mut$v.xz > /tmp/bin/m$v && chmod +x /tmp/bin/m$v; done
export PTXAS=/usr/local/cuda/bin/ptxas
for s in 7 8; do for v in 5 6; do P=/tmp/bin/m$v; t=g$v-s$s; mkdir -p /tmp/reg-$t
  PTXCONFORM_CACHE=/tmp/c-$t timeout 100 $P fuzz --mutants --seed $s --config mixed --trap-budget 0.25 --seconds 60 --out /tmp/mc-$t --regressions /tmp/reg-$t > /tmp/logs/log-$t.txt 2>&1
  echo "== $t"; grep -E "^done|^finding" /tmp/logs/log-$t.txt | cut -c1-250
  grep -o '"generator_version": *[0-9]*' /tmp/mc-$t/campaign.json | head -1
  timeout 60 $P mutants --campaign /tmp/mc-$t --json /tmp/logs/mutants-$t.json > /tmp/logs/mutants-$t.txt 2>&1; tail -4 /tmp/logs/mutants-$t.txt
  grep -i "corner-limit\|wait-read-completes" /tmp/logs/mutants-$t.txt | cut -c1-200
done; done
tar -C /tmp -cJf $OUT/logs.tar.xz logs $(cd /tmp && ls -d reg-*)
