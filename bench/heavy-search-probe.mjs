// Heavy and hostile searches against a running server (session 40's probe; not part of `npm run bench`):
// each case's best time of 3 and its processingTimeMs, or, with --loop CASE, that case sent in a loop by
// C clients for S seconds (run wrk beside it to see what it costs everyone else, e.g.
// `wrk -t1 -c64 -d10s -s bench/wrk-get-paths.lua URL -- PATHS_FILE 0`).
//   node bench/heavy-search-probe.mjs URL [INDEX=npm]
//   node bench/heavy-search-probe.mjs URL INDEX --loop CASE [SECONDS=10] [CLIENTS=4]
// The cases assume the npm workload's index (name, summary; `version`, `downloads`, `name` filterable for
// the facet cases: PATCH its settings first, e.g. {"filterableAttributes":["downloads","version","name"]}).
const [url, index = 'npm', flag, loopCase, seconds = '10', clients = '4'] = process.argv.slice(2);
if (!url) throw new Error('usage: node bench/heavy-search-probe.mjs URL [INDEX] [--loop CASE [SECONDS] [CLIENTS]]');
const search = `/indexes/${index}/search`;
const facetSearch = `/indexes/${index}/facet-search`;
const cases = {
  longWord: [search, { q: 'a'.repeat(10000) }],
  manyPrefixes: [search, { q: 'a b c d e f g h i j k l m n o p' }],
  manyTypos: [search, { q: 'reactt compnent libary frmework utilty javscript typscript plugn serer clent' }],
  repeatedPhrase: [search, { q: '"' + Array.from({ length: 200 }, () => 'the').join(' ') + '"' }],
  manyPhrases: [search, { q: Array.from({ length: 50 }, (_, i) => `"a${i} for"`).join(' ') }],
  functionWords: [search, { q: 'for the a and to of in with on is' }],
  highlightAll: [search, { q: 'a', attributesToHighlight: ['*'], attributesToCrop: ['*'], cropLength: 1000, limit: 1000, showMatchesPosition: true }],
  searchOn: [search, { q: 'for the a', attributesToSearchOn: ['summary'], limit: 1000 }],
  plain1000: [search, { q: 'for the a', limit: 1000 }],
  hugeIn: [search, { q: '', filter: `name IN [${Array.from({ length: 5000 }, (_, i) => `"pkg-${i}"`).join(', ')}]` }],
  manyOr: [search, { q: '', filter: Array.from({ length: 2000 }, (_, i) => `downloads = ${i}`).join(' OR ') }],
  facetsLarge: [search, { q: 'a', facets: ['name', 'version', 'downloads'] }],
  facetSearchPrefix: [facetSearch, { facetName: 'name', facetQuery: 'a' }],
  facetSearchTypo: [facetSearch, { facetName: 'name', facetQuery: 'react' }],
  facetSearchAll: [facetSearch, { facetName: 'name' }],
  multi100: ['/multi-search', { queries: Array.from({ length: 100 }, (_, i) => ({ indexUid: index, q: `for the a and ${i}` })) }],
  federated50: ['/multi-search', { federation: { limit: 1000 }, queries: Array.from({ length: 50 }, (_, i) => ({ indexUid: index, q: `react ${i}` })) }],
};

async function send([path, body]) {
  const started = performance.now();
  const response = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  let info = '';
  try {
    const json = JSON.parse(text);
    info = json.code ? `${json.code}` : `processingTimeMs ${json.processingTimeMs}`;
  } catch {
    info = text.slice(0, 60);
  }
  return { ms: performance.now() - started, status: response.status, bytes: text.length, info };
}

if (flag === '--loop') {
  const chosen = cases[loopCase];
  if (!chosen) throw new Error(`no case ${loopCase}: ${Object.keys(cases).join(', ')}`);
  const end = performance.now() + Number(seconds) * 1000;
  let count = 0;
  let worst = 0;
  await Promise.all(Array.from({ length: Number(clients) }, async () => {
    while (performance.now() < end) {
      const answer = await send(chosen);
      worst = Math.max(worst, answer.ms);
      count++;
    }
  }));
  console.log(`${loopCase}: ${count} searches by ${clients} clients in ${seconds} s, worst ${worst.toFixed(0)} ms`);
} else {
  for (const [name, chosen] of Object.entries(cases)) {
    let best = null;
    for (let k = 0; k < 3; k++) {
      const answer = await send(chosen);
      if (best === null || answer.ms < best.ms) best = answer;
    }
    console.log(`${name.padEnd(18)} ${best.status} best ${best.ms.toFixed(1).padStart(8)} ms ${String(best.bytes).padStart(8)} B  ${best.info}`);
  }
}
