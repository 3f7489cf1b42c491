import struct,sys,collections
# usage: pcapframes.py file.pcap brokerport
f=open(sys.argv[1],'rb'); port=int(sys.argv[2])
gh=f.read(24); magic=struct.unpack('<I',gh[:4])[0]
linktype=struct.unpack('<I',gh[20:24])[0]
segs=collections.Counter(); frames=collections.Counter(); byts=collections.Counter(); firsts=0; last=0
PERF={0x10:'open',0x11:'begin',0x12:'attach',0x13:'flow',0x14:'transfer',0x15:'disposition',0x16:'detach',0x17:'end',0x18:'close'}
while True:
    h=f.read(16)
    if len(h)<16: break
    ts,tu,incl,orig=struct.unpack('<IIII',h); d=f.read(incl)
    if not firsts: firsts=ts+tu/1e6
    last=ts+tu/1e6
    off={1:14,113:16,276:20}.get(linktype,0)
    if linktype==0: off=4
    ip=d[off:]
    if ip[0]>>4!=4: continue
    ihl=(ip[0]&15)*4; tot=struct.unpack('>H',ip[2:4])[0]
    tcp=ip[ihl:]; sp,dp=struct.unpack('>HH',tcp[:4]); thl=(tcp[12]>>4)*4
    plen=tot-ihl-thl
    if plen<=0: continue
    if sp==port: dirn='broker->client'
    elif dp==port: dirn='client->broker'
    else: continue
    segs[dirn]+=1; byts[dirn]+=plen
    p=tcp[thl:]
    # parse frames inside captured part
    i=0
    while i+8<=len(p):
        size=struct.unpack('>I',p[i:i+4])[0]; doff=p[i+4]; typ=p[i+5]
        if size<8 or size>1<<24: break
        b=i+doff*4
        if b==i+size: frames[(dirn,'empty')]+=1
        elif b+3<=len(p) and p[b]==0 and p[b+1]==0x53: frames[(dirn,PERF.get(p[b+2],hex(p[b+2])))]+=1
        else: frames[(dirn,'?')]+=1; break
        i+=size
print('span %.2fs'%(last-firsts))
for k in sorted(segs): print(k,'segments',segs[k],'bytes',byts[k])
for k in sorted(frames): print(k,frames[k])
