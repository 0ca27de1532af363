# /proc/stat's user and system CPUs every 50 ms, as (epoch seconds, user cores, system cores).
import time, sys
out = open(sys.argv[1], 'w')
def read():
    v = list(map(int, open('/proc/stat').readline().split()[1:]))
    return v[0] + v[1], v[2] + v[5] + v[6]
(u0, s0), w0 = read(), time.time()
while True:
    time.sleep(0.05)
    (u1, s1), w1 = read(), time.time()
    d = 100 * (w1 - w0)
    out.write(f'{w1:.3f} {(u1 - u0) / d:.2f} {(s1 - s0) / d:.2f}\n'); out.flush()
    u0, s0, w0 = u1, s1, w1
