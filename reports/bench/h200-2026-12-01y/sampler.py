# /proc/stat's busy CPUs every 50 ms, as (epoch seconds, busy cores) lines, until killed.
import time, sys
out = open(sys.argv[1], 'w')
def busy():
    f = open('/proc/stat').readline().split()[1:]
    v = list(map(int, f))
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)
b0, t0 = busy(); w0 = time.time()
while True:
    time.sleep(0.05)
    b1, t1 = busy(); w1 = time.time()
    # jiffies are 1/100 s; busy cores = busy jiffies / (100 * seconds)
    out.write(f'{w1:.3f} {(b1 - b0) / 100 / (w1 - w0):.2f}\n'); out.flush()
    b0, w0 = b1, w1
