#!/bin/bash
# one line per cell of each run: build, round, config, N, msg/s, p50, p99, fsyncs/msg, CPU columns
pat=${1:-/tmp/s27/inl-*-r*}
for d in $pat; do
  [ -d $d ] || continue
  v=$(basename $d)
  f=$(ls $d/*/matrix.md 2>/dev/null | head -1); [ -n "$f" ] || continue
  grep -E '^\| (non-ha|default|artemis|artemis-pair) +\| [0-9]+ ' $f | awk -F'|' -v v=$v '{printf "%-16s %-8s n=%-3s %8s msg/s p50 %6s p99 %6s | %s | %s | %s | %s\n", v, $2, $3+0, $4, $6, $7, $8, $9, $10, $11}'
done
