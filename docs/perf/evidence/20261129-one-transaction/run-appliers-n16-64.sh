#!/bin/bash
cd /work/main
for round in 3 4; do
  for a in 1 4; do
    echo "=== round $round appliers $a $(date +%T)"
    TANDEM_NO_BUILD=1 bin/perftest matrix --configs default --clients 16,64 --jit-warmup 90s --warmup 60s --window 20s \
      --lib /tmp/lib-exp --results /tmp/exp-app/a$a-r$round --broker-jvm-option=-Dtandem.experiment.appliers=$a 2>&1 | grep -v "^\s*$" | tail -1
  done
done
