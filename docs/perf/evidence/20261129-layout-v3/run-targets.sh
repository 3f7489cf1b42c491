#!/bin/bash
# the targets with 19a9546 (store layout 3): the matrix against the Artemis pair at N=16 and 64, then the backlog
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha,default,artemis-pair --clients 16,64 --jit-warmup 90s \
  --warmup 60s --window 20s --rounds 2 --lib /tmp/lib-v3 --results /tmp/s25/targets > /tmp/s25/targets.log 2>&1
TANDEM_NO_BUILD=1 bin/perftest ha backlog --runs 2 --lib /tmp/lib-v3 --results /tmp/s25/backlog > /tmp/s25/backlog.log 2>&1
