#!/bin/bash
for f in /tmp/s26/light-*-r*/*/matrix.md; do v=$(echo $f | sed 's#/tmp/s26/light-\([a-z]*-r[0-9]\)/.*#\1#'); grep -E '^\| default +\| (4|16) ' $f | awk -F'|' -v v=$v '{printf "%-7s n=%-3s %7s msg/s p50 %s p99 %s fs/msg %s master %s replica %s clients %s\n", v, $3+0, $4, $6, $7, $8, $9, $10, $11}'; done
