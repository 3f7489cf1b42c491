import collections, sys, re
sys.path.insert(0, '/work/main/docs/perf/evidence/20261128-warm-profiles')
src = open('/work/main/docs/perf/evidence/20261128-warm-profiles/profile-summary.py').read()
ns = {}; exec(src.split('def summarise')[0], ns); category = ns['category']
path, msgs = sys.argv[1], float(sys.argv[2])
c = collections.Counter()
for line in open(path):
    stack, n = line.rstrip().rsplit(' ', 1); parts = stack.split(';')
    t = re.sub(r'\d+', '#', re.sub(r' tid=\d+', '', parts[0].strip('[]')))
    c[(t, category(parts))] += int(n)
for (t, k), n in sorted(c.items(), key=lambda x: -x[1])[:30]:
    print(f'{1000*n/msgs:6.1f} µs  {t:40s} {k}')
