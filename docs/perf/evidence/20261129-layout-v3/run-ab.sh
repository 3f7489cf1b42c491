#!/bin/bash
# alternating: v2 (8c50649, store layout 2) and v3 (19a9546, store layout 3), standalone and pair, N=16
cd /work/main
run() { # name lib
  TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha,default --clients 16 --jit-warmup 90s --warmup 60s \
    --window 20s --lib $2 --results /tmp/s25/ab-$1 > /tmp/s25/ab-$1.log 2>&1
}
for r in 1 2 3; do
  run v2-r$r /tmp/lib-v2
  run v3-r$r /tmp/lib-v3
done
