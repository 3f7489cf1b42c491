#!/usr/bin/env python3
# one line per cell: run, config, N, msg/s, p50, p99, send p50/p99, fsyncs/msg, CPU % broker/replica/clients
import csv, glob, sys, os
pat = sys.argv[1] if len(sys.argv) > 1 else '/tmp/s28/lown-*'
for d in sorted(glob.glob(pat), key=lambda p: (p[-2:], p)):
    for f in glob.glob(d + '/*/matrix.csv'):
        for r in csv.DictReader(open(f)):
            print(f"{os.path.basename(d):14} {r['configuration']:8} n={r['n']:3} {float(r['msg_per_s']):8.0f} msg/s p50 {r['latency_p50_ms']:5} p99 {r['latency_p99_ms']:5} send {r['send_p50_ms']:5}/{r['send_p99_ms']:5} fs/msg {r['fsyncs_per_msg']:5} cpu {r['broker_cpu_pct']}/{r['replica_cpu_pct']}/{r['client_cpu_pct']}")
