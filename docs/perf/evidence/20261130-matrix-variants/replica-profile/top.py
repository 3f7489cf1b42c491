import sys, collections
path, thread, depth = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = collections.Counter(); tot = 0
for line in open(path):
    stack, n = line.rstrip().rsplit(' ', 1); n = int(n)
    parts = stack.split(';')
    if thread not in parts[0]: continue
    tot += n
    # leaf-most frames trimmed to depth from the leaf
    c[';'.join(parts[-depth:])] += n
print(thread, tot)
for s, n in c.most_common(25): print(f'{n:6d} {s}')
