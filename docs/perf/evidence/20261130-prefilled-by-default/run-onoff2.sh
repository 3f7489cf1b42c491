#!/bin/bash
# a second round of prefilling on and off alternating at N=1,4 (on first this time)
cd /work/main
for v in on off; do
  opt=""; [ $v = off ] && opt="--broker-jvm-option=-Dtandem.store.prefillLogFiles=false"
  TANDEM_NO_BUILD=1 bin/perftest matrix --configs default --clients 1,4 --jit-warmup 90s --warmup 30s --window 20s \
    --lib /tmp/lib-s29b $opt --results /tmp/s29/lown2-$v > /tmp/s29/lown2-$v.log 2>&1
done
