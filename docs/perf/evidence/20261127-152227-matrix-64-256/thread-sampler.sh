#!/bin/bash
# every ~2 s: per-thread CPU of each BrokerMain JVM (top -H) and the total of every java process
out=$1
while true; do
  pids=$(pgrep -f 'org.tandembroker.core.daemon.BrokerMain' | tr '\n' ',' | sed 's/,$//')
  all=$(pgrep java | tr '\n' ',' | sed 's/,$//')
  [ -z "$all" ] && { sleep 1; continue; }
  echo "=== $(date +%T) procs" >> $out
  top -b -n 2 -d 2 -p $all 2>/dev/null | awk '/^top -/{n++} n==2' | sed -n '8,30p' >> $out
  if [ -n "$pids" ]; then
    echo "=== $(date +%T) threads $pids" >> $out
    top -H -b -n 2 -d 2 -p $pids 2>/dev/null | awk '/^top -/{n++} n==2' | sed -n '8,40p' >> $out
  fi
done
