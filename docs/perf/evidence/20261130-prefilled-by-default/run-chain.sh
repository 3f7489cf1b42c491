#!/bin/bash
# the landed build (cac5f5f): beside standalone and the Artemis pair at N=16,64 (two rounds); then prefilling off and on alternating at N=1,4
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha,default,artemis-pair --clients 16,64 --jit-warmup 90s --warmup 60s --window 20s \
  --rounds 2 --lib /tmp/lib-s29b --results /tmp/s29/peer-16-64 > /tmp/s29/peer-16-64.log 2>&1
for v in off on; do
  opt=""; [ $v = off ] && opt="--broker-jvm-option=-Dtandem.store.prefillLogFiles=false"
  TANDEM_NO_BUILD=1 bin/perftest matrix --configs default --clients 1,4 --jit-warmup 90s --warmup 30s --window 20s \
    --lib /tmp/lib-s29b $opt --results /tmp/s29/lown-$v > /tmp/s29/lown-$v.log 2>&1
done
