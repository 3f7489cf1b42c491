#!/bin/bash
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs default,artemis-pair --clients 64 --jit-warmup 60s --warmup 30s --window 20s --lib /tmp/lib-e711 --results /tmp/res-ccpu > /tmp/ccpu-matrix.log 2>&1 &
sleep 3
hp=$(ps -eo pid,args | grep MatrixBenchmark | grep -v grep | awk '{print $1}' | head -1)
for cfg in default artemis-pair; do
  for i in $(seq 1 400); do grep -q "$cfg N=64\] measuring" /tmp/ccpu-matrix.log && break; sleep 1; done
  sleep 2
  echo "### $cfg (harness pid $hp)"
  python3 /tmp/c2watch2.py $hp 12
done
wait
grep "N=64\] [0-9]" /tmp/ccpu-matrix.log
