cd /work/main
TANDEM_NO_BUILD=1 bin/perftest ha backlog --runs 2 --lib /tmp/lib-E --results /tmp/s24/backlog2 > /tmp/s24/backlog2.log 2>&1
bash /tmp/s24/profalloc.sh default /tmp/s24/alloc-default /tmp/lib-E
