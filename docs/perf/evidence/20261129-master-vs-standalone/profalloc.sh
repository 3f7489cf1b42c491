#!/bin/bash
# profalloc.sh CONFIG OUTDIR LIB: one N=16 cell; async-profiler allocation sampling on the broker (master) for 20 s
cfg=$1; out=$2; lib=$3; mkdir -p $out
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs $cfg --clients 16 --jit-warmup 60s --warmup 30s --window 30s --lib $lib --results $out/res > $out/run.log 2>&1 &
until grep -q "N=16\] measuring" $out/run.log 2>/dev/null; do sleep 1; done
sleep 4
b=$(pgrep -f 'node-1/etc/broker.xml' | head -1); [ -z "$b" ] && b=$(pgrep -f 'etc/broker.xml' | head -1)
echo "broker=$b start=$(date +%T)" > $out/pids
java -jar /tmp/prof/ap.jar profiler -e alloc -d 20 -o collapsed -f $out/alloc.txt $b > $out/ap.log 2>&1
wait
