import os,sys,time,re,collections
pid=sys.argv[1]; interval=float(sys.argv[2]); count=int(sys.argv[3])
hz=os.sysconf('SC_CLK_TCK')
def sample():
    d=collections.Counter()
    for t in os.listdir(f'/proc/{pid}/task'):
        try:
            s=open(f'/proc/{pid}/task/{t}/stat').read()
        except Exception: continue
        name=s[s.index('(')+1:s.rindex(')')]
        f=s[s.rindex(')')+2:].split()
        cpu=(int(f[11])+int(f[12]))/hz
        g=re.sub(r'\d+','N',name)
        d[g]+=cpu
    return d
prev=sample(); t0=time.time()
for i in range(count):
    time.sleep(interval)
    cur=sample()
    diff={k:cur[k]-prev.get(k,0) for k in cur}
    tot=sum(diff.values())
    c2=sum(v for k,v in diff.items() if 'C2' in k or 'CompilerThre' in k)
    c1=sum(v for k,v in diff.items() if 'C1' in k)
    top=sorted(diff.items(), key=lambda x:-x[1])[:5]
    print(f"{time.time()-t0:6.0f}s total {tot/interval*100:5.0f}% C2 {c2/interval*100:4.0f}% C1 {c1/interval*100:3.0f}% | "+", ".join(f"{k}:{v/interval*100:.0f}%" for k,v in top), flush=True)
    prev=cur
