import os, time
def bench(prefill, n=500):
    p='/tmp/fsync-test.bin'
    if os.path.exists(p): os.remove(p)
    fd=os.open(p, os.O_CREAT|os.O_RDWR)
    if prefill:
        os.write(fd, b'\0'*(n*1024+4096)); os.fsync(fd); os.lseek(fd,0,0)
    buf=b'x'*1024
    t=[]
    for i in range(n):
        s=time.perf_counter(); os.write(fd,buf); os.fdatasync(fd); t.append(time.perf_counter()-s)
    os.close(fd); t.sort()
    return t[len(t)//2]*1e6, t[int(len(t)*.9)]*1e6
for r in range(2):
    print('append  p50/p90 us: %.0f %.0f' % bench(False))
    print('prefill p50/p90 us: %.0f %.0f' % bench(True))
s=time.perf_counter(); x=0
for i in range(5_000_000): x+=i
print('cpu loop s: %.2f' % (time.perf_counter()-s))
