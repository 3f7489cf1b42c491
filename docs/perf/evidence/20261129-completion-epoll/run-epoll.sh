#!/bin/bash
cd /work/main
for round in 1 2; do
  if [ $round = 1 ]; then order="epoll new epoll2"; else order="epoll2 new epoll"; fi
  for v in $order; do
    echo "=== round $round $v $(date +%T)"
    lib=$v; opt=""
    if [ $v = epoll2 ]; then lib=epoll; opt="--broker-jvm-option=-Dio.netty.eventLoopThreads=2"; fi
    TANDEM_NO_BUILD=1 bin/perftest matrix --configs default --clients 16,64 --jit-warmup 90s --warmup 60s --window 20s \
      --lib /tmp/lib-$lib $opt --results /tmp/exp-ep/$v-r$round 2>&1 | grep -v "^\s*$" | tail -1
    for d in /tmp/exp-ep/$v-r$round/*/; do grep -h 'master session ends' $d/broker-default-node-1.log > $d/master-session-end.txt; done
  done
done
echo ALLDONE $(date +%T)
