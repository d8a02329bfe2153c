#!/bin/bash
# scale.sh DIR FILE LABEL [PROFDIR]: fresh server from DIR's dist, import FILE (end to end), peak RSS, search latency, restart.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$1; FILE=$2; LABEL=$3; PROF=${4:-}
DB=/tmp/npmdata/db-$LABEL; rm -rf $DB
PORT=$((20000 + RANDOM % 20000)); URL=http://127.0.0.1:$PORT
ARGS=""; [ -n "$PROF" ] && { mkdir -p $PROF; ARGS="--cpu-prof --cpu-prof-dir=$PROF"; }
cd $DIR
node $ARGS dist/src/cli.js --db-path $DB --http-addr 127.0.0.1:$PORT > /tmp/npmdata/server-$LABEL.log 2>&1 &
PID=$!
until curl -sf $URL/health > /dev/null; do sleep 0.1; done
curl -s -X POST $URL/indexes -H 'content-type: application/json' -d '{"uid":"npm","primaryKey":"id"}' > /dev/null
sleep 0.5
curl -s -X PATCH $URL/indexes/npm/settings -H 'content-type: application/json' -d '{"searchableAttributes":["name","summary"]}' > /dev/null
sleep 1
echo "[$LABEL] load before import: $(cat /proc/loadavg)"
T0=$(date +%s.%N)
if [ -n "${POST_ALL:-}" ]; then node $HERE/post-all.mjs $URL npm $FILE ${POST_ALL} > /tmp/npmdata/import-$LABEL.log 2>&1; else node dist/src/cli.js import -u $URL -i npm $FILE > /tmp/npmdata/import-$LABEL.log 2>&1; fi; cat /tmp/npmdata/import-$LABEL.log | tail -1
T1=$(date +%s.%N)
N=$(wc -l < $FILE)
echo "[$LABEL] imported $N docs in $(echo "$T1 - $T0" | bc) s = $(echo "$N / ($T1 - $T0)" | bc) docs/s; load $(cat /proc/loadavg)"
echo "[$LABEL] RSS now $(grep VmRSS /proc/$PID/status | awk '{print $2/1024}') MiB, peak $(grep VmHWM /proc/$PID/status | awk '{print $2/1024}') MiB"
sleep 3
echo "[$LABEL] search (4 conc., 1000 queries): $(node $HERE/probe.mjs $URL npm) load $(cat /proc/loadavg)"
echo "[$LABEL] RSS after searches $(grep VmRSS /proc/$PID/status | awk '{print $2/1024}') MiB, peak $(grep VmHWM /proc/$PID/status | awk '{print $2/1024}') MiB"
sleep 20  # quiet time: structures built, then snapshots saved
kill -INT $PID; wait $PID
PORT=$((PORT + 1)); URL=http://127.0.0.1:$PORT
T0=$(date +%s.%N); echo "[$LABEL] restart spawn at $(date -u +%T.%N)"
node $ARGS dist/src/cli.js --db-path $DB --http-addr 127.0.0.1:$PORT > /tmp/npmdata/server-$LABEL-restart.log 2>&1 &
PID=$!
until curl -sf "$URL/indexes/npm/search?q=react" > /dev/null 2>&1; do sleep 0.02; done
T1=$(date +%s.%N)
echo "[$LABEL] restart: first search answered $(echo "$T1 - $T0" | bc) s after spawn; RSS $(grep VmRSS /proc/$PID/status | awk '{print $2/1024}') MiB; load $(cat /proc/loadavg)"
kill -INT $PID; wait $PID
[ -z "$PROF" ] && [ -z "${KEEP:-}" ] && rm -rf $DB
