#!/usr/bin/env python3
"""Percentiles (ms) of each round's latency-*.hgrm in a matrix results folder. Usage: latency-tail.py FOLDER"""
import sys,glob,re,os

ps=[50,75,90,95,98,99,99.5,99.9,100]
for f in sorted(glob.glob(os.path.join(sys.argv[1],'round-*','latency-*.hgrm'))):
    rows=[]
    for l in open(f):
        m=re.match(r'\s*([\d.]+)\s+([\d.]+)\s+(\d+)',l)
        if m: rows.append((float(m.group(2))*100,float(m.group(1))))
    out=[]
    for p in ps:
        v=next((val for pct,val in rows if pct>=p-1e-9), rows[-1][1]); out.append(f'{v:6.1f}')
    print(f.split('/')[-2], os.path.basename(f).replace('.hgrm','').replace('latency-',''), ' '.join(out))
print('percentiles:',ps)
