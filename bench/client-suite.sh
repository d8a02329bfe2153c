#!/usr/bin/env bash
# The official JS client's own test suite against Skein, file by file (a measurement of what client
# users meet, never part of `npm test`: the suite is not ours and is not copied here).
#   bash bench/client-suite.sh PATH_TO_MEILISEARCH_JS [PORT=7788] > result.md
# PATH_TO_MEILISEARCH_JS: a checkout of meilisearch/meilisearch-js after `npm install --ignore-scripts`.
# Starts `dist/src/cli.js --master-key masterKey` on a fresh data folder (run `npm run build` first: tsc
# alone leaves out the patched uWS copy in native/ that the server loads),
# runs `MEILISEARCH_URL=... npx vitest run tests/NAME.test.ts` for each file (files share indexes, so
# one at a time), and prints a Markdown table of passed / failed / skipped per file and the totals.
# Each file's whole output is kept in $OUT_DIR (default: a new temporary folder).
set -uo pipefail
client=${1:?usage: client-suite.sh PATH_TO_MEILISEARCH_JS [PORT]}
port=${2:-7788}
shopt -s nullglob
files=("$client"/tests/*.test.ts)
[ "${#files[@]}" -gt 0 ] || { echo "no tests/*.test.ts in $client" >&2; exit 1; }
here=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$here/dist/src/cli.js" ] || { echo "no dist/src/cli.js: run npm run build first" >&2; exit 1; }
out=${OUT_DIR:-$(mktemp -d)}
db=$(mktemp -d)
node "$here/dist/src/cli.js" --db-path "$db" --http-addr "127.0.0.1:$port" --master-key masterKey > "$out/server.log" 2>&1 &
server=$!
trap 'kill -INT $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$db"' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/health" > /dev/null && break
  kill -0 $server 2>/dev/null || { echo "the server did not start: $out/server.log" >&2; exit 1; }
  sleep 0.1
done
commit=$(git -C "$client" rev-parse --short HEAD 2>/dev/null || echo unknown)
version=$(node -p 'require(process.argv[1]).version' "$client/package.json" 2>/dev/null || echo unknown)
echo "# meilisearch-js $version ($commit) test suite against Skein $(git -C "$here" rev-parse --short HEAD)"
echo
echo "| file | passed | failed | skipped |"
echo "| --- | --- | --- | --- |"
totals=(0 0 0)
for file in "${files[@]}"; do
  name=$(basename "$file")
  (cd "$client" && MEILISEARCH_URL="http://127.0.0.1:$port" timeout 300 npx vitest run "tests/$name") > "$out/$name.log" 2>&1
  line=$(sed 's/\x1b\[[0-9;]*m//g' "$out/$name.log" | grep -E '^ +Tests ' | tail -n 1)
  counts=()
  for kind in passed failed skipped; do
    counts+=("$(echo "$line" | grep -oE "[0-9]+ $kind" | grep -oE '^[0-9]+' || echo 0)")
  done
  [ -n "$line" ] || counts=(0 "?" 0)
  echo "| $name | ${counts[0]} | ${counts[1]} | ${counts[2]} |"
  for k in 0 1 2; do [[ "${counts[$k]}" =~ ^[0-9]+$ ]] && totals[$k]=$(( totals[k] + counts[k] )); done
done
echo "| **total** | ${totals[0]} | ${totals[1]} | ${totals[2]} |"
echo
echo "Outputs: $out"
