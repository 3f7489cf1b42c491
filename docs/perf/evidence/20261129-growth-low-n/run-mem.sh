#!/bin/bash
# 10,000,000 queued messages on a standalone broker with store layout 3 (5f722e2)
cd /work/main
TANDEM_NO_BUILD=1 bin/perftest memory --nodes 1 --messages 10000000 --heap 1g --lib /tmp/lib-head --results /tmp/s26/memory > /tmp/s26/memory.log 2>&1
