#!/bin/bash
# restart.sh DIR DB LABEL [PROFDIR]: a built checkout DIR started on a kept data folder DB (scale.sh with KEEP=1);
# spawn -> first search answered, the process's CPU then (all threads, and per thread), then (unless NOPROBE=1) probe.mjs
# and the CPU it took (all threads; the busiest, the shard worker's).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$1; DB=$2; LABEL=$3; PROF=${4:-}
ARGS=""; [ -n "$PROF" ] && { rm -rf $PROF; mkdir -p $PROF; ARGS="--cpu-prof --cpu-prof-dir=$PROF"; }
PORT=$((20000 + RANDOM % 20000)); URL=http://127.0.0.1:$PORT
mkdir -p /tmp/npmdata
cd $DIR
L0=$(cut -d' ' -f1-3 /proc/loadavg)
T0=$(date +%s.%N)
node $ARGS dist/src/cli.js --db-path $DB --http-addr 127.0.0.1:$PORT > /tmp/npmdata/server-restart-$LABEL.log 2>&1 &
PID=$!
until R=$(curl -sf "$URL/indexes/npm/search?q=react" 2>/dev/null); do sleep 0.02; done
T1=$(date +%s.%N)
CPU=$(awk '{print ($14+$15)*10}' /proc/$PID/stat)
THREADS=$(for t in /proc/$PID/task/*; do awk '{v=($14+$15)*10; if (v>0) printf "%d ", v}' $t/stat; done)
HITS=$(echo "$R" | grep -o '"estimatedTotalHits":[0-9]*')
echo "[$LABEL] first search $(echo "$T1 - $T0" | bc) s after spawn ($HITS); cpu $CPU ms [threads: $THREADS]; RSS $(grep VmRSS /proc/$PID/status | awk '{print $2/1024}') MiB; load before $L0"
# Per-thread CPU (ms) as "tid:ms" words; the probe's CPU is the difference (the busiest thread in it is the shard worker).
threadCpu() { for t in /proc/$PID/task/*; do awk -v t=$(basename $t) '{printf "%s:%d ", t, ($14+$15)*10}' $t/stat; done; }
if [ -z "${NOPROBE:-}" ]; then
  C0=$(threadCpu); P=$(node $HERE/probe.mjs $URL npm); C1=$(threadCpu)
  BUSY=$(echo "$C0 | $C1" | awk -F' [|] ' '{n=split($1,a," "); for(i=1;i<=n;i++){split(a[i],x,":"); b[x[1]]=x[2]} m=split($2,c," "); tot=0; top=0; for(i=1;i<=m;i++){split(c[i],y,":"); d=y[2]-b[y[1]]; tot+=d; if(d>top)top=d} printf "%d ms, busiest thread %d ms", tot, top}')
  echo "[$LABEL] probe right after: $P; cpu during it $BUSY"
fi
kill -INT $PID; wait $PID
