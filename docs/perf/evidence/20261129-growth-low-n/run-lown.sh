#!/bin/bash
# N=1 and 4 against the Artemis pair with store layout 3 (5f722e2), two rounds
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs default,artemis-pair --clients 1,4 --jit-warmup 90s \
  --warmup 30s --window 20s --rounds 2 --lib /tmp/lib-head --results /tmp/s26/lown > /tmp/s26/lown.log 2>&1
