import re,sys,glob,collections
for f in sorted(glob.glob(sys.argv[1])):
    txt=open(f).read()
    by=collections.defaultdict(list)
    for m in re.finditer(r'\[(\S+), run \d+[^\]]*\] queueing: ([\d,]+) of', txt):
        by[m.group(1)].append(int(m.group(2).replace(',','')))
    fills=dict(re.findall(r'(\S+) run \d+: filled at ([\d,]+) msg/s', txt))
    for setup,c in by.items():
        while c and c[0]==0: c=c[1:]
        inc=[b-a for a,b in zip([0]+c,c)]
        steady=(c[-1]-c[3])/(5*(len(c)-4)) if len(c)>5 else 0
        print(f.split('/')[-1], setup, 'fill', fills.get(setup,'-'), 'first20s', sum(inc[:4]), 'steady(20s+)', round(steady), 'per5s', [round(x/5) for x in inc[:6]])
