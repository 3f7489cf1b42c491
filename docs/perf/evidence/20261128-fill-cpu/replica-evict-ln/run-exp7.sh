#!/bin/bash
cd /work/main
for round in 1 2 3; do
  for v in evict cur; do
    echo "=== $v round $round $(date +%T)"
    TANDEM_NO_BUILD=1 bin/perftest ha backlog --setups ha-default --runs 1 --lib /tmp/lib-$v --results /tmp/exp7/r-$v-$round "--broker-jvm-option=-Xlog:gc:file=/tmp/exp7/gc-$v-$round-%p.log:uptime" > /tmp/exp7/progress-$v-$round.txt 2>&1
    grep -o 'filled at .*duplicates' /tmp/exp7/progress-$v-$round.txt
  done
done
echo DONE $(date +%T)
