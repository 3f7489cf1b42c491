#!/bin/bash
cd /work/main
for round in 1 2 3; do
  for v in pgc base; do
    case $v in
      base) opt=();;
      pgc) opt=(--broker-jvm-option=-XX:+UseParallelGC);;
    esac
    echo "=== $v round $round $(date +%T)"
    TANDEM_NO_BUILD=1 bin/perftest ha backlog --setups ha-default --runs 1 --backlog 300000 --lib /tmp/lib-cur --results /tmp/exp6/r-$v-$round "${opt[@]}" > /tmp/exp6/progress-$v-$round.txt 2>&1
    grep -o 'filled at .*duplicates' /tmp/exp6/progress-$v-$round.txt
  done
done
echo DONE $(date +%T)
