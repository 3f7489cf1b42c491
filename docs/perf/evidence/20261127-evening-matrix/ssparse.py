import sys, re, collections
# per snapshot: {(local,peer): dict}
snaps=[]; cur=None
for line in open(sys.argv[1]):
    if line.startswith('==='):
        cur=(float(line.split()[1]),{}); snaps.append(cur); continue
    f=line.split()
    if len(f)<5: continue
    loc,peer=f[2],f[3]
    d={k:int(v) for k,v in re.findall(r'\b(bytes_sent|bytes_received|segs_out|segs_in|data_segs_out|data_segs_in):(\d+)',line)}
    cur[1][(loc,peer)]=d
ports=sys.argv[2:]
for port in ports:
    print('server port',port)
    prev=None
    for t,s in snaps:
        srv={k:v for k,v in s.items() if k[0].endswith(':'+port)}
        if prev and srv:
            pt,ps=prev
            common=[k for k in srv if k in ps]
            if common:
                dt=t-pt
                def dsum(key): return sum(srv[k].get(key,0)-ps[k].get(key,0) for k in common)/dt
                print('%8.1f conns=%3d  srv data_segs_out/s=%8.0f srv data_segs_in/s=%8.0f  srv segs_out/s=%8.0f bytes_out/s=%9.0f bytes_in/s=%9.0f' % (t%10000, len(common), dsum('data_segs_out'), dsum('data_segs_in'), dsum('segs_out'), dsum('bytes_sent'), dsum('bytes_received')))
        prev=(t,srv) if srv else None
