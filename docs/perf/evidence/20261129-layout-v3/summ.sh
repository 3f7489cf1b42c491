#!/bin/bash
cd /tmp/s25
for d in ab-*/2*; do [ -f $d/matrix.csv ] || continue; echo "$d"; python3 - "$d" <<'PY'
import csv,sys
d=sys.argv[1]
for r in csv.DictReader(open(d+'/matrix.csv')):
    if not r['configuration']: continue
    rate=float(r['msg_per_s'])
    cpu=lambda k: float(r[k] or 0)*1e4/rate
    print(f"  {r['configuration']:8} n={r['n']:3} {rate:8.0f} p50 {r['latency_p50_ms']:>5} p99 {r['latency_p99_ms']:>5} send99 {r['send_p99_ms']:>5} fs/msg {r['fsyncs_per_msg']} us/msg b/r/c/o {cpu('broker_cpu_pct'):.0f}/{cpu('replica_cpu_pct'):.0f}/{cpu('client_cpu_pct'):.0f}/{cpu('other_cpu_pct'):.0f}")
PY
grep -h -o "[0-9]* commits ([0-9]* failed) in [0-9]* transactions ([0-9.]* per transaction" $d/master-session-end.txt 2>/dev/null | tail -1
done
