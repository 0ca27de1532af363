# prof.sh NAME CMD...: run CMD, sample its threads' and GPU workers' CPU every 0.5 s, then sum
# the last sample by thread name (digits stripped) into $OUT/NAME-threads.txt.
name=$1; shift
"$@" > $OUT/$name.txt 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null; do
  { cat /proc/$pid/stat | sed 's/^/P /'
    for t in /proc/$pid/task/*/stat; do cat $t 2>/dev/null; done
    for c in $(pgrep -P $pid); do sed 's/^/W /' /proc/$c/stat 2>/dev/null; done
  } > /tmp/snap.new 2>/dev/null
  # Keep the last whole sample: the one taken as the process ends may be empty.
  [ "$(grep -c . /tmp/snap.new)" -gt 3 ] && grep -q '^P ' /tmp/snap.new && mv /tmp/snap.new /tmp/snap
  sleep 0.5
done
wait $pid
awk '{
  tag=""; if ($1=="P"||$1=="W") {tag=$1; sub(/^[PW] /,"")}
  i=index($0,"("); j=index($0,")"); comm=substr($0,i+1,j-i-1); rest=substr($0,j+2)
  split(rest,f," "); u=f[12]; s=f[13]; cu=f[14]; cs=f[15]
  gsub(/-[0-9]+$/,"",comm)
  if (tag=="P") {printf "process total %.1f s, reaped children (ptxas) %.1f s\n",(u+s)/100,(cu+cs)/100; next}
  if (tag=="W") {w[comm]+=(u+s)/100; wn[comm]++; next}
  t[comm]+=(u+s)/100; n[comm]++
} END {
  for (k in t) printf "thread %-16s %3d threads %8.1f s\n",k,n[k],t[k]
  for (k in w) printf "child  %-16s %3d procs   %8.1f s\n",k,wn[k],w[k]
}' /tmp/snap | sort > $OUT/$name-threads.txt
cat $OUT/$name-threads.txt
