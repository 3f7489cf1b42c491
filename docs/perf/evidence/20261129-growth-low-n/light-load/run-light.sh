#!/bin/bash
# experiment: a second data transaction may start while few commits are outstanding (lightLoad=4) against the shipped admission, alternating, N=4 and 16
cd /work/main
for r in 1 2; do
  for v in off on; do
    opt=""; [ $v = on ] && opt="--broker-jvm-option=-Dtandem.experiment.lightLoad=4"
    TANDEM_NO_BUILD=1 bin/perftest matrix --configs default --clients 4,16 --jit-warmup 90s --warmup 30s --window 20s \
      --lib /tmp/lib-exp $opt --results /tmp/s26/light-$v-r$r > /tmp/s26/light-$v-r$r.log 2>&1
  done
done
