#!/bin/bash
cd /work/main
for round in 1 2 3; do
  for v in gtr base pgc; do
    case $v in
      base) opt=();;
      gtr) opt=(--broker-jvm-option=-XX:GCTimeRatio=99);;
      pgc) opt=(--broker-jvm-option=-XX:+UseParallelGC);;
    esac
    mkdir -p /tmp/exp3/gc-$v-$round
    echo "=== $v round $round $(date +%T)"
    TANDEM_NO_BUILD=1 bin/perftest ha backlog --setups ha-default --runs 1 --backlog 300000 --lib /tmp/lib-cur --results /tmp/exp3/r-$v-$round "--broker-jvm-option=-Xlog:gc:file=/tmp/exp3/gc-$v-$round/gc-%p.log:uptime" "${opt[@]}" > /tmp/exp3/progress-$v-$round.txt 2>&1
    grep -o 'filled at [0-9,]* msg/s (steady [0-9,]*)' /tmp/exp3/progress-$v-$round.txt
  done
done
echo DONE $(date +%T)
