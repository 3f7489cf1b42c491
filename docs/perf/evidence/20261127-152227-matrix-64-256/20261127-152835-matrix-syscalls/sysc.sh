#!/bin/bash
# every 20 s: 15 s of syscall counts of the perftests client JVM and of each broker-ish JVM (Tandem BrokerMain, Artemis)
out=$1
EV=syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_futex,syscalls:sys_enter_sendto,syscalls:sys_enter_recvfrom
while true; do
  c=$(pgrep -f 'org.tandembroker.perftests' | head -1)
  b=$(pgrep -f 'org.tandembroker.core.daemon.BrokerMain|ArtemisPeer|artemis' | tr '\n' ',' | sed 's/,$//')
  if [ -n "$c" ]; then
    echo "=== $(date +%T) client $c" >> $out
    perf stat -x, -e $EV -p $c -- sleep 15 2>> $out &
  fi
  for p in $(echo $b | tr ',' ' '); do
    echo "=== $(date +%T) broker $p $(tr '\0' ' ' < /proc/$p/cmdline | grep -o 'node-[0-9]\|primary\|backup' | head -1)" >> $out
    perf stat -x, -e $EV -p $p -- sleep 15 2>> $out &
  done
  sleep 20
done
