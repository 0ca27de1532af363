import glob, collections, os, re, resource, subprocess, sys
P = sys.argv[1]
def merge(src, per, dst):
    os.makedirs(dst, exist_ok=True)
    g = collections.defaultdict(list)
    for f in sorted(glob.glob(src + '/*.ptx')):
        t = open(f).read(); l = t.split('\n'); g[(l[0], l[1])].append(t)
    n = 0
    for key, texts in g.items():
        for i in range(0, len(texts), per):
            out = []
            for j, t in enumerate(texts[i:i + per]):
                body = re.sub(r'ptxconform_case\w*\(', f'ptxconform_case_{j}(', t[t.index('.visible .entry'):], count=1)
                if j == 0: out.append(t[:t.index('.visible .entry')])
                out.append(body)
            open(f'{dst}/m{n:03}.ptx', 'w').write('\n'.join(out)); n += 1
def cpu(d):
    files = sorted(glob.glob(d + '/m*.ptx'))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN); fails = 0
    for f in files:
        arch = re.search(r'^\.target (\S+)', open(f).read(), re.M).group(1)
        if arch == 'sm_80': arch = 'sm_90'
        fails += subprocess.run([P, '-arch', arch, '-O3', '-o', '/dev/null', f], stderr=subprocess.DEVNULL).returncode != 0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    print(f"{d}: {t:.2f} CPU-s, {len(files)} modules, {fails} failures, {t/400*1000:.1f} ms a shape", flush=True)
base = os.path.dirname(os.path.abspath(__file__))
for kind in ('old', 'new'):
    for per in (1, 5, 16):
        merge(f'{base}/{kind}', per, f'/tmp/m-{kind}{per}')
for d in ('/tmp/m-old5', '/tmp/m-new5', '/tmp/m-old1', '/tmp/m-old16', '/tmp/m-new5', '/tmp/m-old5', '/tmp/m-new16'):
    cpu(d)

def cpu_par(d, n):
    import concurrent.futures as cf, time
    files = sorted(glob.glob(d + '/m*.ptx'))
    def one(f):
        arch = re.search(r'^\.target (\S+)', open(f).read(), re.M).group(1)
        if arch == 'sm_80': arch = 'sm_90'
        return subprocess.run([P, '-arch', arch, '-O3', '-o', '/dev/null', f], stderr=subprocess.DEVNULL).returncode
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN); w0 = time.time()
    with cf.ThreadPoolExecutor(n) as ex:
        list(ex.map(one, files * 4))
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    print(f"{d} x4 on {n} at once: {t:.2f} CPU-s ({r1.ru_stime - r0.ru_stime:.2f} system), wall {time.time()-w0:.2f} s, {t/1600*1000:.1f} ms a shape", flush=True)
if len(sys.argv) > 2:
    for d in ('/tmp/m-old5', '/tmp/m-new5', '/tmp/m-old1', '/tmp/m-old16'):
        cpu_par(d, int(sys.argv[2]))
