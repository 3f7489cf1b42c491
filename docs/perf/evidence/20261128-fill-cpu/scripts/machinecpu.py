import os,sys,time,re,collections
def label(pid):
    try: cmd=open(f'/proc/{pid}/cmdline').read().replace('\0',' ')
    except: return None
    if 'BrokerMain' in cmd: return 'tandem'
    if 'ArtemisPeer' in cmd: return 'artemis'
    if 'perftest' in cmd or 'PerfTest' in cmd or 'tandem.home' in cmd: return 'harness/clients'
    try: return open(f'/proc/{pid}/comm').read().strip()
    except: return None
def snap():
    out={}
    for pid in os.listdir('/proc'):
        if not pid.isdigit(): continue
        l=label(pid)
        if l is None: continue
        for tid in os.listdir(f'/proc/{pid}/task') if os.path.exists(f'/proc/{pid}/task') else []:
            try: s=open(f'/proc/{pid}/task/{tid}/stat').read()
            except: continue
            comm=s[s.index('(')+1:s.rindex(')')]
            f=s[s.rindex(')')+2:].split()
            out[(pid+' '+l,tid,comm)]=(int(f[11]),int(f[12]))
    return out
def stat():
    f=open('/proc/stat').readline().split()[1:]
    return [int(x) for x in f]
dur=float(sys.argv[1])
s0=stat(); a=snap(); time.sleep(dur); b=snap(); s1=stat()
d=[y-x for x,y in zip(s0,s1)]
print('machine: user %.0f nice %.0f sys %.0f idle %.0f iowait %.0f irq %.0f softirq %.0f steal %.0f (%% of a core)'%tuple(v/dur for v in d[:8]))
g=collections.defaultdict(lambda: collections.defaultdict(lambda:[0,0]))
for k,v in b.items():
    p=a.get(k,(0,0)); du=v[0]-p[0]; ds=v[1]-p[1]
    name=re.sub(r'[#-]?\d+$','',k[2]); name=re.sub(r'\d+','N',name)
    g[k[0]][name][0]+=du; g[k[0]][name][1]+=ds
rows=[]
for p,m in g.items():
    u=sum(x[0] for x in m.values()); s=sum(x[1] for x in m.values())
    if u+s: rows.append((u+s,p,u,s,m))
for tot,p,u,s,m in sorted(rows,reverse=True):
    print('%-30s %5.1f%% (user %.1f sys %.1f)'%(p,tot/dur,u/dur,s/dur))
    if len(sys.argv)>2:
        for n,v in sorted(m.items(),key=lambda x:-(x[1][0]+x[1][1]))[:int(sys.argv[2])]:
            if v[0]+v[1]: print('     %-30s %5.1f%% (u %.1f s %.1f)'%(n,(v[0]+v[1])/dur,v[0]/dur,v[1]/dur))
