for r in 2 3; do bash ctxsw.sh wake$r /tmp/lib-W; bash ctxsw.sh base$r /tmp/lib-H; done
