#!/usr/bin/env bash
# usage: bench/query-cost.sh TREE [TREE...]: wrk (1 thread, 16 connections, 6 s) on GET searches of one, two and
# three words (and a frequency search) against each tree's built server, loaded with the 1,800 real npm
# packages of the test fixture; trees alternate, twice. Prints "tree query req/s".
cd "$(dirname "$0")/.."
fixture=$PWD/test/http/fixtures/npm-packages.tsv
port=${QUERY_COST_PORT:-7883}
for round in 1 2; do
  for tree in "$@"; do
    db=$(mktemp -d)
    (cd "$tree" && exec node dist/src/cli.js --db-path "$db/d" --http-addr 127.0.0.1:$port --log-level off) >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 1 100); do curl -s 127.0.0.1:$port/health >/dev/null && break; sleep 0.2; done
    FIXTURE=$fixture PORT=$port node -e '
const fs=require("fs");const lines=fs.readFileSync(process.env.FIXTURE,"utf8").split("\n").slice(1).filter(Boolean);
const docs=lines.map((l,i)=>{const [name,,dl,summary]=l.split("\t");return {id:i,name,summary:summary||""}});
const base="http://127.0.0.1:"+process.env.PORT;
fetch(base+"/indexes/p/documents",{method:"POST",headers:{"content-type":"application/json"},body:JSON.stringify(docs)}).then(r=>r.json()).then(async t=>{for(;;){const s=await (await fetch(base+"/tasks/"+t.taskUid)).json();if(s.status!=="enqueued"&&s.status!=="processing")break;await new Promise(r=>setTimeout(r,100))}})'
    for q in react 'react%20component' 'react%20native%20plugin' 'react%20native%20plugin&matchingStrategy=frequency'; do
      wrk -t1 -c16 -d6s "http://127.0.0.1:$port/indexes/p/search?q=$q" 2>/dev/null | grep -E "Requests/sec" | sed "s#^Requests/sec:#$tree ${q//&/+}#"
    done
    kill $pid; wait $pid 2>/dev/null; rm -rf "$db"
  done
done
