#!/usr/bin/env python3
"""dispatch-share.py COLLAPSED US_PER_MESSAGE: the share of a Tandem broker's samples under the queue's
Dispatcher.dispatch, and what it calls, from async-profiler's collapsed stacks (per thread group: threads.py)."""
import collections, sys
path, per_message = sys.argv[1], float(sys.argv[2])
total = 0; inside = 0; callee = collections.Counter()
for line in open(path):
    stack, n = line.rstrip().rsplit(' ', 1); n = int(n); total += n
    parts = stack.split(';')
    at = [i for i, p in enumerate(parts) if p == 'org/tandembroker/core/queue/Dispatcher.dispatch']
    if at:
        inside += n
        i = at[-1]
        callee[parts[i + 1] if i + 1 < len(parts) else '(its own code)'] += n
print(f'{total:,} samples; Dispatcher.dispatch and below: {inside:,} ({100 * inside / total:.1f} %, '
      f'{per_message * inside / total:.1f} µs of the {per_message:.0f} per message)')
for name, n in callee.most_common(6):
    print(f'    {n:6,}  {name}')
