#!/bin/bash
# standalone at N=64: base (6e2fbf9), the landed hand-overs (1080051), the enqueue alone (experiment build without its property), alternating, two rounds
cd /work/main
for r in 1 2; do
  for v in base hand enq; do
    lib=/tmp/lib-base6e; [ $v = hand ] && lib=/tmp/lib-hand; [ $v = enq ] && lib=/tmp/lib-inline2
    TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha --clients 64 --jit-warmup 90s --warmup 60s --window 20s \
      --lib $lib --results /tmp/s27/sa-$v-r$r > /tmp/s27/sa-$v-r$r.log 2>&1
  done
done
