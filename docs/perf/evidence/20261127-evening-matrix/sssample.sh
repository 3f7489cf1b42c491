#!/bin/bash
# every 2 s: per-socket TCP counters of established loopback connections
out=$1
while true; do
  echo "=== $(date +%s.%N)" >> $out
  ss -tinH state established 2>/dev/null | paste - - >> $out
  sleep 2
done
