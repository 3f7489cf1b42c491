#!/bin/bash
# profrun.sh CONFIG OUTDIR (N=16 profrun.sh ... for another N; default 64): one matrix cell after a 90 s JIT warm-up; async-profiler on broker, replica and client for 30 s from about 4 s into the window
cfg=$1; out=$2; mkdir -p $out
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs $cfg --clients ${N:-64} --jit-warmup 90s --warmup 10s --window 45s --lib /tmp/lib-A --results $out/res > $out/run.log 2>&1 &
until grep -q "N=${N:-64}\] measuring" $out/run.log 2>/dev/null; do sleep 1; done
sleep 4
bench=$(pgrep -f MatrixBenchmark | head -1)
if [ $cfg = default ]; then b=$(pgrep -f 'node-1/etc/broker.xml' | head -1); r=$(pgrep -f 'node-2/etc/broker.xml' | head -1); else b=$(pgrep -f 'primary/logback.xml' | head -1); r=$(pgrep -f 'backup/logback.xml' | head -1); fi
echo "bench=$bench broker=$b replica=$r start=$(date +%T)" > $out/pids
for x in broker:$b replica:$r client:$bench; do n=${x%%:*}; p=${x##*:}; java -jar /tmp/prof/ap.jar profiler -e cpu -i 1ms -d 30 -t -o collapsed -f $out/$n.txt $p > $out/ap-$n.log 2>&1 & done
wait
