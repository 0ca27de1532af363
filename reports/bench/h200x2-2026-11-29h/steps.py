import sys,re
for f in sys.argv[1:]:
  L=open(f).read().splitlines()
  fa=[float(re.search(r'first-ahead ([\d.]+)',l).group(1)) for l in L if 'first-ahead' in l]
  st=[tuple(map(float,re.search(r'step (\d+) obs ([\d.]+)ms ahead ([\d.]+)ms total ([\d.]+)',l).groups())) for l in L if 'XX step' in l]
  bl=[tuple(map(float,re.search(r'hw ([\d.]+)ms gen ([\d.]+)ms waited ([\d.]+)',l).groups())) for l in L if 'XX block' in l]
  print("==",f,"blocks",len(bl),"hw sum %.1f s (mean %.0f ms) gen sum %.1f"%(sum(b[0] for b in bl)/1e3,sum(b[0] for b in bl)/len(bl),sum(b[1] for b in bl)/1e3))
  print("  first-ahead n=%d sum %.1f s mean %.0f ms"%(len(fa),sum(fa)/1e3,sum(fa)/max(1,len(fa))))
  # first step of each lane per block: the steps right after each first-ahead line
  firsts=[];rest=[]
  pend=0
  for l in L:
    if 'first-ahead' in l: pend+=1
    elif 'XX step' in l:
      m=re.search(r'step (\d+) obs ([\d.]+)ms ahead ([\d.]+)ms total ([\d.]+)',l); v=tuple(map(float,m.groups()))
      if pend>0: firsts.append(v); pend-=1
      else: rest.append(v)
  for name,ss in (("lane-first steps",firsts),("other steps",rest)):
    n=max(1,len(ss))
    print("  %s %d: obs sum %.1f ahead sum %.1f total sum %.1f; mean obs %.0f ahead %.0f total %.0f"%(name,len(ss),sum(s[1] for s in ss)/1e3,sum(s[2] for s in ss)/1e3,sum(s[3] for s in ss)/1e3,sum(s[1] for s in ss)/n,sum(s[2] for s in ss)/n,sum(s[3] for s in ss)/n))
