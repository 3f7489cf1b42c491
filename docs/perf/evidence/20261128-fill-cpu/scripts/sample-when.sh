#!/bin/bash
# $1 progress file, $2 output
f=$1
for i in $(seq 1 600); do
  n=$(grep -c "queueing" $f 2>/dev/null)
  if [ "${n:-0}" -ge 4 ]; then python3 /tmp/machinecpu.py 15 8 > $2; exit; fi
  sleep 1
done
