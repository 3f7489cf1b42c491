#!/usr/bin/env python3
# threads.py broker.txt MESSAGES : samples (1 ms each) per thread group and per code owner, as µs per message
import collections, re, sys
path, messages = sys.argv[1], float(sys.argv[2])
by_thread = collections.Counter(); by_owner = collections.Counter(); by_both = collections.Counter(); total = 0
def owner(parts):
    kernel = any(p.endswith('_[k]') for p in parts)
    for p in reversed(parts):
        q = p.replace('.', '/')
        for pre, name in (('com/sleepycat/je/rep', 'JE rep'), ('com/sleepycat', 'JE'), ('io/netty', 'Netty'),
                          ('org/apache/qpid/proton', 'Proton'), ('org/tandembroker/store', 'Tandem store'),
                          ('org/tandembroker/amqp', 'Tandem amqp'), ('org/tandembroker', 'Tandem core'),
                          ('java/util/concurrent', 'j.u.concurrent'), ('sun/nio', 'NIO'), ('java/', 'JDK')):
            if q.startswith(pre) or ('/' + pre) in q[:len(pre) + 2]:
                return name + (' [kernel]' if kernel and parts[-1].endswith('_[k]') else '')
    return 'native/other' + (' [kernel]' if kernel else '')
for line in open(path):
    stack, n = line.rstrip().rsplit(' ', 1); n = int(n); total += n
    parts = stack.split(';')
    t = re.sub(r'\d+', '#', re.sub(r' tid=\d+', '', parts[0].strip('[]')))
    by_thread[t] += n
    o = owner(parts[1:])
    by_owner[o] += n
    by_both[(t, o)] += n
print(f'{path}: {total} samples, {1000*total/messages:.1f} µs/msg over {messages:.0f} messages')
print('-- threads'); [print(f'  {1000*n/messages:6.1f} µs  {t}') for t, n in by_thread.most_common(25)]
print('-- code (deepest known frame owner)'); [print(f'  {1000*n/messages:6.1f} µs  {o}') for o, n in by_owner.most_common(20)]
