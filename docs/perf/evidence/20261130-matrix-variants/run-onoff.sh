#!/bin/bash
# Prefilled log files on and off, standalone and pair, N=16 and 64, two rounds; one command.
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha,default --clients 16,64 --jit-warmup 90s --warmup 30s --window 20s --rounds 2 \
  --variant on= --variant off=-Dtandem.store.prefillLogFiles=false --lib /tmp/lib-base --results /tmp/s30/onoff
