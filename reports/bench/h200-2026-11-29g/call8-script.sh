source .dev/probe/setup.sh
$P litmus cases/litmus/races.yaml --stress spin --seconds-per-case 3 --out $OUT/litmus > $OUT/litmus.txt 2>&1; tail -5 $OUT/litmus.txt
grep -E "^## |instances in|^\| .completed" $OUT/litmus/litmus.md | cut -c1-150 | head -60
