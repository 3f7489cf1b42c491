import os,sys,time,re,collections
def label(pid):
    try: cmd=open(f'/proc/{pid}/cmdline').read()
    except: return None
    if 'BrokerMain' in cmd: return 'tandem'
    if 'ArtemisPeer' in cmd: return 'artemis'
    if 'tandem.home' in cmd: return 'clients'
    return None
def snap():
    out={}
    for pid in os.listdir('/proc'):
        if not pid.isdigit(): continue
        l=label(pid)
        if not l: continue
        for tid in os.listdir(f'/proc/{pid}/task'):
            try: s=open(f'/proc/{pid}/task/{tid}/status').read(); st=open(f'/proc/{pid}/task/{tid}/stat').read()
            except: continue
            v=int(re.search(r'^voluntary_ctxt_switches:\s*(\d+)',s,re.M).group(1)); n=int(re.search(r'nonvoluntary_ctxt_switches:\s*(\d+)',s).group(1))
            f=st[st.rindex(')')+2:].split()
            comm=st[st.index('(')+1:st.rindex(')')]
            out[(pid+' '+l,tid,comm)]=(v,n,int(f[11])+int(f[12]))
    return out
dur=float(sys.argv[1]); a=snap(); time.sleep(dur); b=snap()
g=collections.defaultdict(lambda: collections.defaultdict(lambda:[0,0,0]))
for k,x in b.items():
    y=a.get(k,(0,0,0)); name=re.sub(r'\d+','N',re.sub(r'[#-]?\d+$','',k[2]))
    for i in range(3): g[k[0]][name][i]+=x[i]-y[i]
for p,m in g.items():
    t=[sum(v[i] for v in m.values()) for i in range(3)]
    print('%-16s cpu %5.1f%%  vol/s %7.0f  invol/s %7.0f'%(p,t[2]/dur,t[0]/dur,t[1]/dur))
    for n,v in sorted(m.items(),key=lambda x:-x[1][2])[:6]:
        print('   %-24s cpu %5.1f%%  vol/s %7.0f  invol/s %7.0f'%(n,v[2]/dur,v[0]/dur,v[1]/dur))
