#!/bin/bash
# prof256.sh CONFIG OUTDIR: one N=256 matrix cell (standalone broker) after a 90 s JIT warm-up; async-profiler on the broker and the client JVM for 30 s from about 4 s into the window
cfg=$1; out=$2; mkdir -p $out
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs $cfg --clients 256 --jit-warmup 90s --warmup 40s --window 45s --lib /tmp/lib-head --results $out/res > $out/run.log 2>&1 &
until grep -q "N=256\] measuring" $out/run.log 2>/dev/null; do sleep 1; done
sleep 4
bench=$(pgrep -f MatrixBenchmark | head -1)
ps -eo pid,pcpu,args --sort=-pcpu | grep '[j]ava' | grep -v MatrixBenchmark > $out/ps.txt
b=$(head -1 $out/ps.txt | awk '{print $1}')
echo "bench=$bench broker=$b start=$(date +%T)" > $out/pids
for x in broker:$b client:$bench; do n=${x%%:*}; p=${x##*:}; java -jar /tmp/prof/ap.jar profiler -e cpu -i 1ms -d 30 -t -o collapsed -f $out/$n.txt $p > $out/ap-$n.log 2>&1 & done
wait
