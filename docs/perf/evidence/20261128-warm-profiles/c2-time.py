#!/usr/bin/env python3
"""C2 compile time per method from a HotSpot -XX:+LogCompilation file, for tasks started after T seconds.

Usage: c2-time.py LOGFILE [T]   (the broker run with --broker-jvm-option=-XX:+UnlockDiagnosticVMOptions
--broker-jvm-option=-XX:+LogCompilation --broker-jvm-option=-XX:LogFile=/tmp/jit-%p.log)
"""
import collections, re, sys

text = open(sys.argv[1], errors='replace').read()
after = float(sys.argv[2]) if len(sys.argv) > 2 else 100.0
by_method = collections.Counter(); compiles = collections.Counter(); by_package = collections.Counter()
total = 0.0; tasks = 0
for match in re.finditer(r"<task compile_id='\d+'(?: compile_kind='osr')? method='([^']+)'([^>]*)stamp='([\d.]+)'>"
                         r".*?<task_done[^>]*stamp='([\d.]+)'", text, re.S):
    method, attributes, start, end = match.group(1), match.group(2), float(match.group(3)), float(match.group(4))
    if start < after or ("level=" in attributes and "level='4'" not in attributes):
        continue
    seconds = end - start
    by_method[method] += seconds; compiles[method] += 1; total += seconds; tasks += 1
    by_package['.'.join(method.split(' ')[0].split('.')[:3])] += seconds
print(f'C2 tasks started after {after:.0f} s: {tasks}, {total:.1f} s of compile time')
for package, seconds in by_package.most_common(10):
    print(f'{seconds:7.2f} s  {package}')
for method, seconds in by_method.most_common(20):
    print(f'{seconds:7.3f} s  x{compiles[method]}  {method[:150]}')
