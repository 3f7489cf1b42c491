#!/bin/bash
# N=256 against N=64 with store layout 3 (5f722e2), standalone and the pair, two rounds
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha,default --clients 64,256 --jit-warmup 90s \
  --warmup 60s --window 20s --rounds 2 --lib /tmp/lib-head --results /tmp/s26/growth > /tmp/s26/growth.log 2>&1
