#!/usr/bin/env python3
"""threads.py COLLAPSED US_PER_MESSAGE: a process's samples per thread group (digits dropped from thread names)."""
import collections, re, sys
path, per_message = sys.argv[1], float(sys.argv[2])
total = 0; threads = collections.Counter()
for line in open(path):
    stack, n = line.rstrip().rsplit(' ', 1); n = int(n); total += n
    name = re.sub(r' tid=\d+', '', stack.split(';')[0])
    threads[re.sub(r'\d+', 'N', name)] += n
for name, n in threads.most_common(8):
    print(f'    {100 * n / total:5.1f} %  {per_message * n / total:5.0f} µs  {name}')
