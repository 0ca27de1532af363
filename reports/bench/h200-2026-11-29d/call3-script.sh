source .dev/probe/setup.sh
printf '#!/bin/sh\nexec nice -n 10 /usr/local/cuda/bin/ptxas "$@"\n' > /tmp/ptxas-nice; chmod +x /tmp/ptxas-nice
g() { tag=$1; shift; env PTXCONFORM_CACHE=/tmp/cache-$tag LOG=$OUT/fz-$tag.txt "$@" python3 .dev/probe/cpuprof.py $P fuzz --config legal --seed 0 --seconds ${S:-30} --out /tmp/f-$tag > $OUT/cpu-$tag.txt 2>&1; echo "== $tag $*"; head -1 $OUT/cpu-$tag.txt; grep -h -E '^done' $OUT/fz-$tag.txt | cut -c1-100; grep -h 'timing' $OUT/fz-$tag.txt | sed 's/taking.*to start),//' | cut -c10-200; }
S=8 g warm X=1 >/dev/null
g base X=1
g nicegen RENICE=generate:10 PTXAS=/tmp/ptxas-nice
g niceptx PTXAS=/tmp/ptxas-nice
g mpc1 XX_MPC=1
g mpc1nice XX_MPC=1 RENICE=generate:10 PTXAS=/tmp/ptxas-nice
