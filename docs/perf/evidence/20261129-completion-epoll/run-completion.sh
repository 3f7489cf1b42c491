#!/bin/bash
cd /work/main
for round in 1 2 3; do
  if [ $((round % 2)) = 1 ]; then order="new base"; else order="base new"; fi
  for v in $order; do
    echo "=== round $round $v $(date +%T)"
    TANDEM_NO_BUILD=1 bin/perftest matrix --configs default --clients 16,64 --jit-warmup 90s --warmup 60s --window 20s \
      --lib /tmp/lib-$v --results /tmp/exp-cmp/$v-r$round 2>&1 | grep -v "^\s*$" | tail -1
    grep -h 'master session ends' /tmp/exp-cmp/$v-r$round/*/broker-default-node-1.log /tmp/exp-cmp/$v-r$round/broker-default-node-1.log 2>/dev/null > /tmp/exp-cmp/$v-r$round/master-session-end.txt
  done
done
echo ALLDONE $(date +%T)
