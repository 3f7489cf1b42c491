#!/bin/bash
# the build with the hand-overs on the caller (uncommitted work tree at 20:31) beside standalone and the Artemis pair; then N=1,4 and N=256
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha,default,artemis-pair --clients 16,64 --jit-warmup 90s --warmup 60s --window 20s \
  --rounds 2 --lib /tmp/lib-hand --results /tmp/s27/final > /tmp/s27/final.log 2>&1
TANDEM_NO_BUILD=1 bin/perftest matrix --configs default,artemis-pair --clients 1,4 --jit-warmup 90s --warmup 30s --window 20s \
  --lib /tmp/lib-hand --results /tmp/s27/lown > /tmp/s27/lown.log 2>&1
