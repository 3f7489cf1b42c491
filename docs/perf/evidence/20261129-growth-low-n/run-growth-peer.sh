#!/bin/bash
# N=64 and 256, Tandem standalone (working tree with the dispatcher change) beside Artemis standalone, two rounds
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha,artemis --clients 64,256 --jit-warmup 90s \
  --warmup 60s --window 20s --rounds 2 --lib /tmp/lib-disp --results /tmp/s26/growth-peer > /tmp/s26/growth-peer.log 2>&1
