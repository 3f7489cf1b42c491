#!/bin/bash
# prof1.sh CONFIG OUTDIR [LIB] : one N=16 matrix cell; async-profiler on the broker (master) only, 20 s from 4 s into the window
cfg=$1; out=$2; lib=${3:-/tmp/lib-exp}; mkdir -p $out
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs $cfg --clients 16 --jit-warmup 90s --warmup 30s --window 30s --lib $lib --results $out/res $EXTRA > $out/run.log 2>&1 &
until grep -q "N=16\] measuring" $out/run.log 2>/dev/null; do sleep 1; done
sleep 4
b=$(pgrep -f 'node-1/etc/broker.xml' | head -1); [ -z "$b" ] && b=$(pgrep -f 'etc/broker.xml' | head -1)
echo "broker=$b start=$(date +%T)" > $out/pids
java -jar /tmp/prof/ap.jar profiler -e cpu -i 1ms -d 20 -t -o collapsed -f $out/broker.txt $b > $out/ap.log 2>&1
wait
