#!/bin/bash
cd /work/main
for round in 1 2; do
  for v in adm base; do
    echo "=== round $round $v $(date +%T)"
    TANDEM_NO_BUILD=1 bin/perftest matrix --configs default --clients 16,64 --jit-warmup 90s --warmup 60s --window 20s \
      --lib /tmp/lib-$v --results /tmp/exp-adm/$v-r$round 2>&1 | grep -v "^\s*$" | tail -1
  done
done
