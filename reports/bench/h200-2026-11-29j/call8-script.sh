# call 8 (nvidia-h200, 16 cores): 0f89708, --config mixed --trap-budget 0.25 (as in earlier sessions), seed 0, 15 s
mkdir -p /tmp/bin && xz -dc .dev/carry/new.xz > /tmp/bin/new && chmod +x /tmp/bin/new
export PTXAS=/usr/local/cuda/bin/ptxas P=/tmp/bin/new
PTXCONFORM_CACHE=/tmp/cache-m0 timeout 120 $P fuzz --config mixed --trap-budget 0.25 --seed 0 --seconds 15 --out /tmp/m0 > $OUT/mixed-budget-0.txt 2>&1; echo "rc $?"; grep -v "^steering\|^ptxas oracle\|^hardware judged" $OUT/mixed-budget-0.txt | cut -c1-300 | tail -20
ls /tmp/m0 2>/dev/null | head; cp /tmp/m0/campaign.json $OUT/ 2>/dev/null; ls /tmp/m0/divergences 2>/dev/null | head -3
