#!/bin/bash
cd /work/main
for v in ov8 base base ov8; do
  n=$((n+1)); opt="--broker-jvm-option=-Dtandem.experiment.overlapAt=64"; [ $v = ov8 ] && opt="--broker-jvm-option=-Dtandem.experiment.overlapAt=8"
  echo "=== $n $v $(date +%T)"
  TANDEM_NO_BUILD=1 bin/perftest ha backlog --setups ha-default --runs 1 --lib /tmp/lib-ov $opt --results /tmp/exp-ov/$v-$n 2>&1 | grep 'run 1: filled'
done
echo ALLDONE $(date +%T)
