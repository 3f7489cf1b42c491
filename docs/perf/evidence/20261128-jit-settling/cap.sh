#!/bin/bash
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs default,artemis-pair --clients 64 --jit-warmup 60s --warmup 30s --window 20s --lib /tmp/lib-e711 --results /tmp/res-cap > /tmp/cap-matrix.log 2>&1 &
for cfg in default artemis-pair; do
  for i in $(seq 1 400); do grep -q "$cfg N=64\] measuring" /tmp/cap-matrix.log && break; sleep 1; done
  sleep 3
  timeout 4 tcpdump -i lo -s 0 -w /tmp/cap-$cfg.pcap 'tcp' 2>/dev/null
done
wait
