#!/usr/bin/env bash
# wrk on GET search against a server loaded with the 1,800 real npm packages of the test fixture, log level off vs info (human) vs info (json)
cd "$(dirname "$0")/.."
for mode in "off human" "info human" "info json" "off human" "info human" "info json"; do
  set -- $mode
  db=$(mktemp -d)
  node dist/src/cli.js --db-path $db/d --http-addr 127.0.0.1:7881 --log-level $1 --experimental-logs-mode $2 2>/tmp/logbench.err >/dev/null &
  pid=$!
  for i in $(seq 1 50); do curl -s 127.0.0.1:7881/health >/dev/null && break; sleep 0.2; done
  node -e '
const fs=require("fs");const lines=fs.readFileSync("test/http/fixtures/npm-packages.tsv","utf8").split("\n").slice(1).filter(Boolean);
const docs=lines.map((l,i)=>{const [name,,dl,summary]=l.split("\t");return {id:i,name,summary:summary||""}});
fetch("http://127.0.0.1:7881/indexes/p/documents",{method:"POST",headers:{"content-type":"application/json"},body:JSON.stringify(docs)}).then(r=>r.json()).then(async t=>{for(;;){const s=await (await fetch("http://127.0.0.1:7881/tasks/"+t.taskUid)).json();if(s.status!=="enqueued"&&s.status!=="processing")break;await new Promise(r=>setTimeout(r,100))}})'
  wrk -t1 -c32 -d6s 'http://127.0.0.1:7881/indexes/p/search?q=react' 2>/dev/null | grep -E "Requests/sec" | sed "s/^/$1 $2 /"
  kill $pid; wait $pid 2>/dev/null; rm -rf $db
done
