#!/bin/bash
cd /work/main
for round in 1 2 3; do
  for v in base el2 pgc; do
    case $v in
      base) opt=();;
      el2) opt=(--broker-jvm-option=-Dio.netty.eventLoopThreads=2);;
      pgc) opt=(--broker-jvm-option=-XX:+UseParallelGC);;
    esac
    echo "=== $v round $round $(date +%T)"
    TANDEM_NO_BUILD=1 bin/perftest ha backlog --setups ha-default --runs 1 --backlog 300000 --lib /tmp/lib-cur --results /tmp/exp1/r-$v-$round "${opt[@]}" > /tmp/exp1/progress-$v-$round.txt 2>&1
    grep -E "filled at|steady" /tmp/exp1/progress-$v-$round.txt | tail -3
  done
done
echo DONE $(date +%T)
