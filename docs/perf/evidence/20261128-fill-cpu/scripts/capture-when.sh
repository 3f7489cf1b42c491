#!/bin/bash
# $1 progress file, $2 out prefix, $3 pattern of process (BrokerMain|ArtemisPeer)
f=$1
for i in $(seq 1 600); do
  n=$(grep -c "queueing" $f 2>/dev/null)
  if [ "${n:-0}" -ge 4 ]; then break; fi
  sleep 1
done
ss -ltnp | grep java > $2.ports
a=$(grep -o 'queueing: [0-9,]*' $f | tail -1)
timeout 3 tcpdump -i lo -s 256 -w $2.pcap tcp 2>/dev/null
b=$(grep -o 'queueing: [0-9,]*' $f | tail -1)
echo "$a / $b" > $2.count
date +%T.%N >> $2.count
