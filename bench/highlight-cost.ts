// What formatting costs per search as instant-meilisearch asks for it (every search: attributesToHighlight
// ["*"], its own tags, limit 21): the npm workload's documents and query list on one ShardEngine (no
// threads, no HTTP); each search's hits formatted as the shard worker does (buildMatcher and a HitFormatter
// once per search, then per hit its format and JSON.stringify). Over HTTP these searches ran at a quarter of the plain ones'
// rate (DECISIONS, session 46). Prints µs per search for the search alone and for its hits' formatting,
// and an md5 of the formatted hits (a change to the formatting path must keep it).
//   node dist/bench/highlight-cost.js [documents=100000] [queries=20000] [warm=5000]
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ShardEngine, type JsonDocument } from '../src/shard/shard-engine.js';
import { buildMatcher, HitFormatter } from '../src/formatting/index.js';
import { createNpmDataset } from './npm-dataset.js';
import { buildRealQueries } from './npm-queries.js';
import { applyOverrides, loadWorkloadFile, workloadPath } from './workload.js';

const [documentsArg = '100000', queriesArg = '20000', warmArg = '5000'] = process.argv.slice(2);
const workloadsDirectory = fileURLToPath(new URL('../../bench/workloads', import.meta.url));
const workload = applyOverrides(loadWorkloadFile(workloadPath('npm', workloadsDirectory)), { documents: Number(documentsArg) });
const dataset = createNpmDataset(workload.dataset as never);
const warm = Number(warmArg);
const queries = buildRealQueries(dataset, workload.queries as never).slice(0, warm + Number(queriesArg));
const engine = new ShardEngine(0, 1);
function* documents(): Generator<[number, JsonDocument]> {
  for (let seq = 0; seq < dataset.spec.documents; seq++) yield [seq, dataset.documentAt(seq) as JsonDocument];
}
engine.loadIndex('npm', 1, workload.index.settings, documents());
engine.prepareForSearch();
const config = engine.configOf('npm')!;
/** instant-meilisearch's search parameters (its highlight tags; hitsPerPage 20, asked as limit 21). */
const OPTIONS = { attributesToHighlight: ['*'], highlightPreTag: '__ais-highlight__', highlightPostTag: '__/ais-highlight__' };
const LIMIT = 21;

let searchMs = 0;
let formatMs = 0;
let formatted = 0;
const md5 = createHash('md5');
queries.forEach((query, k) => {
  const at = performance.now();
  const result = engine.search({ indexUid: 'npm', shards: [0], q: query.q, hitsWanted: LIMIT, matchingStrategy: 'last', options: OPTIONS });
  const searched = performance.now();
  const matcher = buildMatcher(query.q, { typoPolicy: config.typoPolicy, prefixSearch: config.prefixSearch, synonyms: config.synonyms });
  const formatter = new HitFormatter(OPTIONS, matcher, config.settings.displayedAttributes);
  const texts = result.hits.map((hit) => JSON.stringify(formatter.format({
    stored: dataset.documentAt(hit.docId) as JsonDocument, attributesToRetrieve: null,
    displayedAttributes: config.settings.displayedAttributes, score: hit.score,
  })));
  const done = performance.now();
  if (k < warm) return;
  searchMs += searched - at;
  formatMs += done - searched;
  formatted += texts.length;
  for (const text of texts) md5.update(text);
});
const measured = queries.length - warm;
console.log(JSON.stringify({
  documents: dataset.spec.documents, searches: measured, hitsFormatted: formatted,
  searchUsPerSearch: Math.round((searchMs * 1000) / measured), formatUsPerSearch: Math.round((formatMs * 1000) / measured),
  formatUsPerHit: Math.round((formatMs * 10000) / formatted) / 10, md5: md5.digest('hex'),
}));
