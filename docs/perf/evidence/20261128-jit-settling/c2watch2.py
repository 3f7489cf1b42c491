import os,sys,time,re,collections
pid=sys.argv[1]; interval=float(sys.argv[2]); hz=os.sysconf('SC_CLK_TCK')
def sample():
    d=collections.Counter()
    for t in os.listdir(f'/proc/{pid}/task'):
        try: s=open(f'/proc/{pid}/task/{t}/stat').read()
        except Exception: continue
        name=s[s.index('(')+1:s.rindex(')')]; f=s[s.rindex(')')+2:].split()
        d[re.sub(r'\d+','N',name)]+=(int(f[11])+int(f[12]))/hz
    return d
a=sample(); time.sleep(interval); b=sample()
diff={k:b[k]-a.get(k,0) for k in b}; tot=sum(diff.values())
print(f"total {tot/interval*100:.0f}% of a core")
for k,v in sorted(diff.items(), key=lambda x:-x[1])[:10]: print(f"  {k}: {v/interval*100:.1f}%")
