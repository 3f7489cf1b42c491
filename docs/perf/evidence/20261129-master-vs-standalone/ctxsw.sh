#!/bin/bash
# ctxsw.sh NAME LIB : one N=16 cell; the master's threads' context switches over 15 s of the window
name=$1; lib=$2; out=/tmp/s24/cs-$name; mkdir -p $out
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs default --clients 16 --jit-warmup 60s --warmup 30s --window 25s --lib $lib --results $out/res > $out/run.log 2>&1 &
until grep -q "N=16\] measuring" $out/run.log 2>/dev/null; do sleep 1; done
sleep 2
b=$(pgrep -f 'node-1/etc/broker.xml' | head -1)
snap() { for t in /proc/$b/task/*; do printf "%s\t%s\t%s\n" "$(cat $t/comm)" "$(grep ^voluntary_ctxt $t/status | awk '{print $2}')" "$(grep ^nonvoluntary_ctxt $t/status | awk '{print $2}')"; done; }
snap > $out/s1; s=$(date +%s.%N); sleep 15; snap > $out/s2; e=$(date +%s.%N)
echo "$s $e" > $out/times
wait
