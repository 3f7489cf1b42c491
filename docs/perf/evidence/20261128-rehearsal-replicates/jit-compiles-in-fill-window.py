import re,sys,datetime,collections
f,start=sys.argv[1],sys.argv[2]
t0=datetime.datetime.fromisoformat('2026-11-28T'+start)
R=re.compile(r'\[(\S+?)\+0000\]\[\S+\]\s+(\d+)\s+([%sbn! ]*?)\s*([0-4])\s+(\S+)')
last={}; cat=collections.Counter(); n=0; c2=0
for line in open(f):
    m=R.match(line)
    if not m: continue
    t=datetime.datetime.fromisoformat(m.group(1)); d=(t-t0).total_seconds()
    meth=m.group(5); tier=m.group(4); ne='made not entrant' in line; osr='%' in m.group(3)
    if d<0:
        if tier=='4': last[meth]=('ne' if ne else ('osr' if osr else 'c2'))
    elif d<20 and not ne:
        n+=1
        if tier=='4':
            c2+=1
            if not osr: cat[last.get(meth,'new')]+=1
print(f.split('/')[-1],'fill window compiles',n,'c2',c2,'c2 by previous state',dict(cat))
