#!/bin/bash
# experiment: a commit's completing thread enqueues and dispatches itself when the queue is idle (inline) against 6e2fbf9 (base), alternating
cd /work/main
for r in 1 2; do
  for v in base inline; do
    lib=/tmp/lib-base6e; [ $v = inline ] && lib=/tmp/lib-inline
    TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha,default --clients 16,64 --jit-warmup 90s --warmup 60s --window 20s \
      --lib $lib --results /tmp/s27/inl-$v-r$r > /tmp/s27/inl-$v-r$r.log 2>&1
  done
done
