#!/bin/bash
# after run-final.sh: standalone at N=64 and 256, base (6e2fbf9) and the hand-over build, alternating, one round each
cd /work/main
while pgrep -f run-final.sh > /dev/null; do sleep 5; done
for v in base hand; do
  lib=/tmp/lib-base6e; [ $v = hand ] && lib=/tmp/lib-hand
  TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha --clients 64,256 --jit-warmup 90s --warmup 60s --window 20s \
    --lib $lib --results /tmp/s27/g256-$v > /tmp/s27/g256-$v.log 2>&1
done
