#!/usr/bin/env python3
"""Summarise async-profiler collapsed stacks (-e cpu -i 1ms -t -o collapsed) of one matrix cell.

Usage: profile-summary.py RUN_FOLDER [N]   (N: the cell's clients, default 64; the folder holds run.log, broker.txt, replica.txt (not for a standalone broker), client.txt from profrun.sh or prof256.sh)
Prints, per process, the samples (1 ms of CPU each), the CPU per message over the profiled 30 s (messages from the
matrix's 5 s progress lines that fall in it) and where the samples went.
"""
import collections, re, sys, os

def category(parts):
    thread = parts[0]
    if 'CompilerThre' in thread: return 'JIT compiler threads'
    if 'GC Thread' in thread or 'G1' in thread or 'VM Thread' in thread: return 'GC and VM threads'
    kernel = [p for p in parts if p.endswith('_[k]')]
    if any(p in ('__x64_sys_fdatasync_[k]', '__x64_sys_fsync_[k]') for p in parts): return 'fdatasync'
    if any('sys_futex' in p for p in kernel) or ('exit_to_user_mode_loop_[k]' in parts
            and any('pthread_cond' in p or 'futex' in p or 'lll_lock' in p for p in parts)):
        return 'futex (threads parking and waking)'
    if any('epoll' in p for p in kernel) or parts[-1] in ('epoll_wait', 'epoll_pwait2'): return 'epoll'
    if kernel:
        joined = ';'.join(parts)
        if any(x in joined for x in ('tcp_', 'sock_', '__GI___send', 'recv', 'SocketDispatcher', 'Socket.')):
            return 'sockets (kernel, loopback TCP both ends)'
        return 'file writes and other kernel'
    return 'user space (Java code)'

def summarise(path):
    counts = collections.Counter(); total = 0
    for line in open(path):
        stack, n = line.rstrip().rsplit(' ', 1); n = int(n); total += n
        counts[category(stack.split(';'))] += n
    return counts, total

def profiled_messages(run_log, n):
    rates = [int(m.group(1).replace(',', '')) for m in
             re.finditer(r'N=' + n + r'\] measuring\s+\d+ s left .*?([\d,]+) msg/s', open(run_log).read())]
    # the profile starts about 4 s after the first progress line and runs 30 s: the next six 5 s intervals
    return sum(r * 5 for r in rates[1:7]), rates

folder = sys.argv[1]
messages, rates = profiled_messages(os.path.join(folder, 'run.log'), sys.argv[2] if len(sys.argv) > 2 else '64')
print(f'{folder}: window progress (msg/s per 5 s) {rates}; about {messages:,} messages in the profiled 30 s')
for name in ('broker', 'replica', 'client'):
    if not os.path.exists(os.path.join(folder, name + '.txt')):
        continue  # a standalone broker's cell has no replica
    counts, total = summarise(os.path.join(folder, name + '.txt'))
    print(f'  {name}: {total:,} samples, {1000 * total / messages:.0f} µs per message')
    for key, n in counts.most_common():
        print(f'      {100 * n / total:4.0f} %  {1000 * n / messages:5.0f} µs  {key}')
