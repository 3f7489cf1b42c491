#!/bin/bash
# experiment: base (6e2fbf9) / inline enqueue / inline enqueue + settle + credit (property), alternating, pair only
cd /work/main
for r in 1 2; do
  for v in base inline settle; do
    lib=/tmp/lib-base6e; opt=""
    [ $v = inline ] && lib=/tmp/lib-inline2
    [ $v = settle ] && { lib=/tmp/lib-inline2; opt="--broker-jvm-option=-Dtandem.experiment.inlineSettle=true"; }
    TANDEM_NO_BUILD=1 bin/perftest matrix --configs default --clients 16,64 --jit-warmup 90s --warmup 60s --window 20s \
      --lib $lib $opt --results /tmp/s27/set-$v-r$r > /tmp/s27/set-$v-r$r.log 2>&1
  done
done
