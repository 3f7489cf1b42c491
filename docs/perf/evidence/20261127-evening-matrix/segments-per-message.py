"""Segments and bytes per message consumed, per direction, from ssparse.py's output and the run's matrix.csv."""
import re, statistics, csv, sys

def phases(f):
    out = {}; port = None
    for l in open(f):
        if l.startswith('server port'):
            port = l.split()[2]; continue
        m = re.search(r'conns=\s*(\d+)\s+srv data_segs_out/s=\s*(\d+) srv data_segs_in/s=\s*(\d+).*bytes_out/s=\s*(\d+) bytes_in/s=\s*(\d+)', l)
        if m:
            c, o, i, bo, bi = map(int, m.groups())
            if c in (32, 128, 512) and o > 5000:
                out.setdefault((port, c), []).append((o, i, bo, bi))
    return out

runs = [('segments-173128-standalone-16-64.txt', '20261127-173128-matrix', {'42463': 'non-ha', '35161': 'artemis'}),
        ('segments-181321-64-256.txt', '20261127-181321-matrix', {'42843': 'non-ha', '43981': 'default'})]
for f, d, names in runs:
    rates = {(r['configuration'], int(r['n'])): float(r['msg_per_s']) for r in csv.DictReader(open(d + '/matrix.csv'))}
    for (port, c), v in sorted(phases(f).items()):
        key = (names[port], c // 2)
        if key not in rates:
            continue  # the matrix's unmeasured JIT warm-up
        v = sorted(v)[len(v) // 4:]  # drop the ramp-up quarter
        o = statistics.median(x[0] for x in v); i = statistics.median(x[1] for x in v)
        bo = statistics.median(x[2] for x in v); rate = rates[key]
        print(f"{d} {key[0]:8} N={key[1]:3} {rate:7.0f} msg/s  broker->clients {o / rate:.2f} segments/msg "
              f"({bo / rate:.0f} B/msg), clients->broker {i / rate:.2f} segments/msg")
