#!/bin/bash
# after run-lown.sh: the store and tools tests; the prefill build beside the Artemis pair at N=1,4 (two rounds);
# the backlog fill off/on; the prefill build beside standalone and the Artemis pair at N=16,64 (two rounds)
cd /work/main
while pgrep -f run-lown.sh > /dev/null; do sleep 5; done
mvn -o -B test -pl broker-store-bdbha,broker-tools > /tmp/s28/tests.log 2>&1
TANDEM_NO_BUILD=1 bin/perftest matrix --configs default,artemis-pair --clients 1,4 --jit-warmup 90s --warmup 30s --window 20s \
  --rounds 2 --lib /tmp/lib-prefill --results /tmp/s28/peer-lown > /tmp/s28/peer-lown.log 2>&1
for v in off on; do
  opt=""; [ $v = off ] && opt="--broker-jvm-option=-Dtandem.store.prefillLogFiles=false"
  TANDEM_NO_BUILD=1 bin/perftest ha backlog --setups ha-default --runs 1 --lib /tmp/lib-prefill $opt \
    --results /tmp/s28/backlog-$v > /tmp/s28/backlog-$v.log 2>&1
done
TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha,default,artemis-pair --clients 16,64 --jit-warmup 90s --warmup 60s --window 20s \
  --rounds 2 --lib /tmp/lib-prefill --results /tmp/s28/peer-16-64 > /tmp/s28/peer-16-64.log 2>&1
