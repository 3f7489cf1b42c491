#!/bin/bash
# CPU µs per message from each run's "Per run" table: master (or standalone broker), replica, clients
for f in ${1:-/tmp/s27/set-* /tmp/s27/inl-*}; do
  [ -d $f ] || continue
  m=$(ls $f/*/matrix.md 2>/dev/null | head -1); [ -n "$m" ] || m=$f/matrix.md
  grep -E '^\| (non-ha|default|artemis-pair) +\| [0-9]+ ' $m | awk -F'|' -v v=$(basename $f) '{r=$4; gsub(/[ ,]/,"",r); b=$9; gsub(/[ %]/,"",b); rp=$10; gsub(/[ %]/,"",rp); c=$11; gsub(/[ %]/,"",c); printf "%-15s %-13s n=%-3s %6d msg/s  master %5.1f µs  replica %s  clients %5.1f µs\n", v, $2, $3+0, r, b*10000/r, (rp=="-"?"-":sprintf("%.1f", rp*10000/r)), c*10000/r}'
done | sort -k3,3 -k2,2 -k1,1
