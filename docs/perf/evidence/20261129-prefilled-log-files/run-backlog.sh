#!/bin/bash
# the final build (prefilled log files only where commits fsync: not on a NO_SYNC replica) beside the Artemis pair,
# then the same build with prefilling off, then on again: the backlog's fill and drain
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest ha backlog --setups ha-default,artemis-pair --runs 1 --lib /tmp/lib-prefill2 \
  --results /tmp/s28/backlog2-on > /tmp/s28/backlog2-on.log 2>&1
TANDEM_NO_BUILD=1 bin/perftest ha backlog --setups ha-default --runs 1 --lib /tmp/lib-prefill2 \
  --broker-jvm-option=-Dtandem.store.prefillLogFiles=false --results /tmp/s28/backlog2-off > /tmp/s28/backlog2-off.log 2>&1
TANDEM_NO_BUILD=1 bin/perftest ha backlog --setups ha-default --runs 1 --lib /tmp/lib-prefill2 \
  --results /tmp/s28/backlog3-on > /tmp/s28/backlog3-on.log 2>&1
