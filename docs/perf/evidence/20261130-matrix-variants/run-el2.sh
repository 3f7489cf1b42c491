#!/bin/bash
# Netty event loops: the default (2 x cores = 4) against 2, the pair beside the Artemis pair, N=16 and 64, two rounds.
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs default,artemis-pair --clients 16,64 --jit-warmup 90s --warmup 30s --window 20s --rounds 2 \
  --variant base= --variant el2=-Dio.netty.eventLoopThreads=2 --lib /tmp/lib-base --results /tmp/s30/el2
