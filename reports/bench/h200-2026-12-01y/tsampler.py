# Every 50 ms: CPU (cores) of each thread name of the processes whose command line contains
# argv[2] (the campaign, whose command line holds ' fuzz ', and its worker), as JSON lines {"t": epoch, "cpu": {name: cores}}.
import os, sys, time, json
out = open(sys.argv[1], 'w'); pat = sys.argv[2]
HZ = os.sysconf('SC_CLK_TCK')
def pids():
    r = []
    for p in os.listdir('/proc'):
        if p.isdigit():
            try:
                c = open(f'/proc/{p}/cmdline', 'rb').read().replace(b'\0', b' ').decode()
            except OSError:
                continue
            if pat in c and 'tsampler' not in c:
                r.append((p, 'campaign' if ' fuzz ' in c else 'worker'))
    return r
def snap():
    s = {}
    for p, role in pids():
        try:
            for t in os.listdir(f'/proc/{p}/task'):
                try:
                    f = open(f'/proc/{p}/task/{t}/stat').read()
                except OSError:
                    continue
                name = f[f.index('(') + 1:f.rindex(')')]
                rest = f[f.rindex(')') + 2:].split()
                s[(p, t, role + ':' + ('main' if t == p else name))] = int(rest[11]) + int(rest[12])
        except OSError:
            pass
    return s
a, w0 = snap(), time.time()
while True:
    time.sleep(0.05)
    b, w1 = snap(), time.time()
    agg = {}
    for k, v in b.items():
        d = v - a.get(k, v)
        if d:
            n = k[2].rstrip('0123456789-')
            agg[n] = agg.get(n, 0) + d / HZ / (w1 - w0)
    out.write(json.dumps({'t': round(w1, 3), 'cpu': {k: round(v, 2) for k, v in agg.items()}}) + '\n'); out.flush()
    a, w0 = b, w1
