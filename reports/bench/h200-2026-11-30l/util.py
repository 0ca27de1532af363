# samples /proc/stat every 50 ms until the file $1 exists; writes t, busy cores, iowait cores
import time,sys,os
out=open(sys.argv[2],'w')
def rd():
    v=list(map(int,open('/proc/stat').readline().split()[1:]))
    idle=v[3]+v[4]; tot=sum(v[:8]); return tot,idle,v[4]
t0=time.time(); a=rd()
while not os.path.exists(sys.argv[1]):
    time.sleep(0.05); b=rd(); t=time.time()-t0
    dt=b[0]-a[0]
    if dt>0: out.write("%.2f %.2f %.2f\n"%(t,16*(dt-(b[1]-a[1]))/dt,16*(b[2]-a[2])/dt))
    a=b
out.close()
