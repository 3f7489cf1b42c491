#!/bin/bash
f=$1
for i in $(seq 1 600); do
  n=$(grep -c "queueing" $f 2>/dev/null); if [ "${n:-0}" -ge 4 ]; then break; fi; sleep 1
done
a=$(grep -o 'queueing: [0-9,]*' $f | tail -1); date +%s.%N > $2
python3 /tmp/ctxsw.py 10 >> $2
date +%s.%N >> $2; echo "$a" >> $2
