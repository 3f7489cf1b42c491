#!/bin/bash
# prefilled JE log files: off (-Dtandem.store.prefillLogFiles=false) against on, same build, alternating, N=1 and 4
cd /work/main
for r in 1 2; do
  for v in off on; do
    opt=""; [ $v = off ] && opt="--broker-jvm-option=-Dtandem.store.prefillLogFiles=false"
    TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha,default --clients 1,4 --jit-warmup 90s --warmup 30s --window 20s \
      --lib /tmp/lib-prefill $opt --results /tmp/s28/lown-$v-r$r > /tmp/s28/lown-$v-r$r.log 2>&1
  done
done
