#!/bin/bash
cd /work/main
for v in ov base; do
  echo "=== sync2 $v $(date +%T)"
  TANDEM_NO_BUILD=1 bin/perftest matrix --configs sync-sync-all --clients 16 --jit-warmup 60s --warmup 30s --window 20s \
    --lib /tmp/lib-$v --results /tmp/exp-lanes/sync2-$v 2>&1 | grep -v "^\s*$" | tail -1
done
