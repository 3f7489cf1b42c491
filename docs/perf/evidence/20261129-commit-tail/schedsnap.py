import os,sys,time,collections
def snap(pid):
    d={}
    for t in os.listdir(f'/proc/{pid}/task'):
        try:
            name=open(f'/proc/{pid}/task/{t}/comm').read().strip()
            run,wait,sl=map(int,open(f'/proc/{pid}/task/{t}/schedstat').read().split())
            d[t]=(name,run,wait,sl)
        except Exception: pass
    return d
pids=sys.argv[1].split(','); secs=float(sys.argv[2])
a={p:snap(p) for p in pids}; time.sleep(secs); b={p:snap(p) for p in pids}
for p in pids:
    groups=collections.defaultdict(lambda:[0,0,0,0])
    for t,(n,r,w,s) in b[p].items():
        if t in a[p]:
            _,r0,w0,s0=a[p][t]
            import re
            g=re.sub(r'\d+','#',n)
            x=groups[g]; x[0]+=r-r0; x[1]+=w-w0; x[2]+=s-s0; x[3]+=1
    tot=[sum(v[i] for v in groups.values()) for i in range(3)]
    print(f"pid {p}: cpu {tot[0]/1e9/secs*100:.0f}% runq-wait {tot[1]/1e9/secs*100:.0f}% slices/s {tot[2]/secs:.0f} wait/slice {tot[1]/max(1,tot[2])/1e3:.0f}us")
    for g,(r,w,s,c) in sorted(groups.items(),key=lambda kv:-kv[1][0])[:14]:
        print(f"  {g:32s} x{c:3d} cpu {r/1e9/secs*100:5.1f}% wait {w/1e9/secs*100:5.1f}% slices/s {s/secs:7.0f} wait/slice {w/max(1,s)/1e3:6.0f}us")
