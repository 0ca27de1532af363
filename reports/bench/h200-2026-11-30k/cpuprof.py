# Run a command; sample per-thread CPU of it and its descendants; report CPU-seconds by thread-name group.
import os, sys, time, subprocess, re, collections
HZ = os.sysconf('SC_CLK_TCK')
p = subprocess.Popen(sys.argv[1:], stdout=open(os.environ.get('LOG', '/dev/null'), 'w'), stderr=subprocess.STDOUT)
last = {}
RENICE = [(a.split(':')[0], int(a.split(':')[1])) for a in os.environ.get('RENICE', '').split(',') if a]
niced = set()
def descendants(root):
    kids = collections.defaultdict(list)
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                s = open(f'/proc/{d}/stat').read()
                ppid = int(s[s.rfind(')')+2:].split()[1]); kids[ppid].append(int(d))
            except Exception: pass
    out, st = [], [root]
    while st:
        x = st.pop(); out.append(x); st += kids.get(x, [])
    return out
def snap():
    for pid in descendants(p.pid):
        try:
            pcomm = open(f'/proc/{pid}/comm').read().strip()
            for t in os.listdir(f'/proc/{pid}/task'):
                s = open(f'/proc/{pid}/task/{t}/stat').read()
                comm = s[s.find('(')+1:s.rfind(')')]
                f = s[s.rfind(')')+2:].split()
                last[(pid, int(t))] = (pcomm, comm, (int(f[11]) + int(f[12])) / HZ)
                for pre, n in RENICE:
                    if (comm.startswith(pre) or pcomm.startswith(pre)) and int(t) not in niced:
                        niced.add(int(t))
                        try: os.setpriority(os.PRIO_PROCESS, int(t), n)
                        except Exception: pass
        except Exception: pass
t0 = time.time()
while p.poll() is None:
    snap(); time.sleep(0.25)
wall = time.time() - t0
ru = os.wait4 if False else None
import resource
r = resource.getrusage(resource.RUSAGE_CHILDREN)
groups = collections.Counter()
for (pid, tid), (pcomm, comm, cpu) in last.items():
    g = re.sub(r'[-_ ]?\d+$', '', comm)
    groups[f"{pcomm}{'' if pid==p.pid else ('(ptxas)' if pcomm=='ptxas' else '(child)')}/{g}"] += cpu
tot = sum(groups.values())
print(f'reniced {len(niced)} tasks; wall {wall:.1f}s; sampled threads {tot:.1f} cpu-s; all children (rusage) {r.ru_utime + r.ru_stime:.1f} cpu-s')
for g, c in groups.most_common(25): print(f'  {c:8.1f}  {g}')
