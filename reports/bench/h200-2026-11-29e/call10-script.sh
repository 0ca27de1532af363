source .dev/probe/setup.sh
$P bench --only shapes --out $OUT/shapes.json > $OUT/shapes.txt 2>&1; tail -8 $OUT/shapes.txt
