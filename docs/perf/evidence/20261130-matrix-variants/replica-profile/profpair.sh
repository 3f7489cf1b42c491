#!/bin/bash
# profpair.sh OUTDIR [LIB] [N]: one matrix cell of the default pair; async-profiler on master and replica, 20 s from 4 s into the window
out=$1; lib=${2:-/tmp/lib-base}; n=${3:-16}; mkdir -p $out
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs default --clients $n --jit-warmup 90s --warmup 30s --window 30s --lib $lib --results $out/res $EXTRA > $out/run.log 2>&1 &
until grep -q "N=$n\] measuring" $out/run.log 2>/dev/null; do sleep 1; done
sleep 4
m=$(grep -o "master: node [0-9]" $out/run.log | awk '{print $3}')
r=$((3-m))
mp=$(pgrep -f "node-$m/etc/broker.xml" | head -1); rp=$(pgrep -f "node-$r/etc/broker.xml" | head -1)
echo "master=node-$m pid $mp replica=node-$r pid $rp start=$(date +%T)" > $out/pids
java -jar /tmp/prof/ap.jar profiler -e cpu -i 1ms -d 20 -t -o collapsed -f $out/master.txt $mp > $out/ap-m.log 2>&1 &
java -jar /tmp/prof/ap.jar profiler -e cpu -i 1ms -d 20 -t -o collapsed -f $out/replica.txt $rp > $out/ap-r.log 2>&1
wait
