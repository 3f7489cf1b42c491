#!/bin/bash
# alternating: base (HEAD 44c6f85), wake (fewer applier wake-ups), noentries (what-if: no queue-entry records)
cd /work/main
run() { # name lib [jvm option]
  local extra=(); [ -n "$3" ] && extra=(--broker-jvm-option=$3)
  TANDEM_NO_BUILD=1 bin/perftest matrix --configs default --clients 16,64 --jit-warmup 90s --warmup 60s --window 20s \
    --lib $2 --results /tmp/s24/ab-$1 "${extra[@]}" > /tmp/s24/ab-$1.log 2>&1
}
for r in 1 2; do
  run base-r$r /tmp/lib-H
  run wake-r$r /tmp/lib-W
  run noent-r$r /tmp/lib-N -Dtandem.experiment.noEntries=true
done
