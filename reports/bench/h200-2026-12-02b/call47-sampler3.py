# /proc/stat's CPU line every 250 ms: epoch seconds, then the shares of user, system, idle, iowait
# and steal over the interval, and the mean "cpu MHz" of /proc/cpuinfo.
import time, sys
out = open(sys.argv[1], 'w')
def read():
    v = list(map(int, open('/proc/stat').readline().split()[1:]))
    user, nice, system, idle, iowait, irq, softirq, steal = v[:8]
    return (user + nice, system + irq + softirq, idle, iowait, steal)
def mhz():
    f = [float(l.split(':')[1]) for l in open('/proc/cpuinfo') if l.startswith('cpu MHz')]
    return sum(f) / len(f) if f else 0.0
a = read()
while True:
    time.sleep(0.25)
    b = read()
    d = [y - x for x, y in zip(a, b)]
    t = sum(d) or 1
    out.write(f'{time.time():.3f} ' + ' '.join(f'{100 * x / t:.1f}' for x in d) + f' {mhz():.0f}\n'); out.flush()
    a = b
