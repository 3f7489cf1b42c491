import sys, re, collections, glob
out = sys.argv[1]
def load(f):
    d = collections.defaultdict(lambda: [0, 0])
    for line in open(f):
        c, v, n = line.rstrip('\n').split('\t')
        k = re.sub(r'\d+', '#', c)
        d[k][0] += int(v or 0); d[k][1] += int(n or 0)
    return d
a, b = load(out + '/s1'), load(out + '/s2')
log = open(out + '/run.log').read()
rates = [int(x.replace(',', '')) for x in re.findall(r'N=16\] measuring\s+\d+ s left .*?([\d,]+) msg/s', log)]
msgs = sum(rates[1:4]) * 5
print(out, 'rates', rates, 'msgs in 15 s ~', msgs)
for k in sorted(b, key=lambda k: -(b[k][0] - a[k][0])):
    dv = b[k][0] - a[k][0]; dn = b[k][1] - a[k][1]
    if dv + dn < 100: continue
    print(f'  {k:28s} voluntary {dv/msgs:5.2f}/msg  involuntary {dn/msgs:5.2f}/msg')
