cd /work/main
TANDEM_NO_BUILD=1 bin/perftest matrix --configs non-ha,default,artemis-pair --clients 16 --jit-warmup 90s --warmup 60s --window 20s --rounds 2 --lib /tmp/lib-E --results /tmp/s24/targets > /tmp/s24/targets.log 2>&1
TANDEM_NO_BUILD=1 bin/perftest ha backlog --runs 2 --lib /tmp/lib-E --results /tmp/s24/backlog > /tmp/s24/backlog.log 2>&1
