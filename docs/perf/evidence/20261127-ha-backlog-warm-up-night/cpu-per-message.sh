#!/bin/bash
# run one Tandem backlog, sample CPU and syscalls of each JVM during the fill
lib=${1:-/tmp/lib-head}; tag=${2:-x}
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest ha backlog --setups ${SETUPS:-ha-default} --runs 1 --lib $lib --results /tmp/prof/res > /tmp/prof/run-$tag.log 2>&1 &
sleep ${DELAY:-40}
pids=$(jps -l | grep -v Jps | grep -v Launcher | awk '{print $1}')
for p in $pids; do
  n=$(tr '\0' ' ' < /proc/$p/cmdline | grep -o 'BrokerMain\|HaBenchmark\|ArtemisPeer[A-Za-z]*\|artemis[A-Za-z.]*' | head -1)
  read -r u s < <(awk '{print $14, $15}' /proc/$p/stat); echo "$p $n $u $s" ; done > /tmp/prof/cpu0-$tag
c0=$(grep -o "queueing: [0-9,]*" /tmp/prof/run-$tag.log | tail -1 | tr -dc 0-9)

sleep 20
c1=$(grep -o "queueing: [0-9,]*" /tmp/prof/run-$tag.log | tail -1 | tr -dc 0-9)
for p in $pids; do read -r u s < <(awk '{print $14, $15}' /proc/$p/stat); echo "$p $u $s"; done > /tmp/prof/cpu1-$tag
echo "confirmed during the 20 s: $((c1-c0))"
join /tmp/prof/cpu0-$tag /tmp/prof/cpu1-$tag | awk -v m=$((c1-c0)) '{printf "%s %s user %.0f µs/msg sys %.0f µs/msg\n",$1,$2,($5-$3)*10000/m,($6-$4)*10000/m}'
wait
grep "filled at" /tmp/prof/run-$tag.log
