# usage: pcapconn.py file.pcap : per-role (producer / consumer connection) segments and AMQP frames per message
import struct,sys,collections
f=open(sys.argv[1],'rb')
gh=f.read(24); linktype=struct.unpack('<I',gh[20:24])[0]
PERF={0x10:'open',0x11:'begin',0x12:'attach',0x13:'flow',0x14:'transfer',0x15:'disposition',0x16:'detach',0x17:'end',0x18:'close'}
conns=collections.defaultdict(lambda: collections.Counter())
ports=collections.Counter()
pending={}
while True:
    h=f.read(16)
    if len(h)<16: break
    ts,tu,incl,orig=struct.unpack('<IIII',h); d=f.read(incl)
    off={1:14,113:16,276:20,0:4}.get(linktype,0)
    ip=d[off:]
    if not ip or ip[0]>>4!=4: continue
    ihl=(ip[0]&15)*4; tot=struct.unpack('>H',ip[2:4])[0]
    tcp=ip[ihl:]; sp,dp=struct.unpack('>HH',tcp[:4]); thl=(tcp[12]>>4)*4
    plen=tot-ihl-thl
    if plen<=0: continue
    p=tcp[thl:thl+plen]
    key=(sp,dp)
    conns[key]['segments']+=1; conns[key]['bytes']+=plen
    # reassemble a simple stream per direction to parse frames across segments
    buf=pending.get(key,b'')+p
    i=0
    while i+8<=len(buf):
        size=struct.unpack('>I',buf[i:i+4])[0]; doff=buf[i+4]
        if size<8 or size>1<<24: buf=b''; i=0; break
        if i+size>len(buf): break
        b=i+doff*4
        if b==i+size: conns[key]['empty']+=1
        elif b+3<=len(buf) and buf[b]==0 and buf[b+1]==0x53: conns[key][PERF.get(buf[b+2],hex(buf[b+2]))]+=1
        else: conns[key]['?']+=1
        i+=size
    pending[key]=buf[i:]
# broker port: the port present in the most distinct connections
for (a,b) in conns: ports[a]+=1; ports[b]+=1
broker=ports.most_common(1)[0][0]
roles=collections.defaultdict(collections.Counter)
for (sp,dp),c in conns.items():
    if broker not in (sp,dp): continue
    client=dp if sp==broker else sp
    dirn='b->c' if sp==broker else 'c->b'
    tob=conns.get((client,broker),collections.Counter()); fromb=conns.get((broker,client),collections.Counter())
    role='consumer' if fromb['transfer']>tob['transfer'] else 'producer'
    for k,v in c.items(): roles[(role,dirn)][k]+=v
print('broker port',broker)
for role in ('producer','consumer'):
    msgs=roles[(role,'c->b')]['transfer'] if role=='producer' else roles[(role,'b->c')]['transfer']
    print(f'== {role} connections: {msgs} messages')
    for dirn in ('c->b','b->c'):
        c=roles[(role,dirn)]
        print('  ',dirn,' '.join(f'{k}={v/max(msgs,1):.3f}' for k,v in sorted(c.items()) if k!='bytes'), f'bytes/msg={c["bytes"]/max(msgs,1):.0f}')
