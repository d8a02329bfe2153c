// attributesToSearchOn against many alike long field names: 1,000 names with a leading and a trailing `*`
// (milli's match_pattern: "contains") against 999 fields of 400 characters sharing their first 396 once
// cost the front thread ~700 ms (a million String#includes in search-on-check.ts), and the shards the
// same per search in FieldRestriction (every field of every document read against every name). No
// request may hold the front: the longest event-loop delay while such requests are answered stays far
// under that, and the answers stay Meilisearch's (the first name matching no field is named).
// The same for `facets` (facet-patterns.ts): 999 facets against 999 plain filterableAttributes entries
// took the shard ~8.4 s per search (every facet against every rule, every field against every facet).
import test from 'ava';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { errorBody, startTestServer, type TestServer } from './harness.js';

const HEAD = 'a'.repeat(396);
const FIELDS = Array.from({ length: 999 }, (_, k) => `${HEAD}${String(k).padStart(4, '0')}`);
/**
 * 1,000 distinct names each matching fields near the end of the list only (`*a…a0998*`, `*a…a099*`,
 * `*a…a09*` for every run of `a`): each one is looked for in ~900 fields before one holds it.
 */
const HOSTILE = [
  ...Array.from({ length: 396 }, (_, k) => `*${'a'.repeat(k + 1)}0998*`),
  ...Array.from({ length: 396 }, (_, k) => `*${'a'.repeat(k + 1)}099*`),
  ...Array.from({ length: 208 }, (_, k) => `*${'a'.repeat(k + 1)}09*`),
];
/** The error of a list whose `*mid*` names would cost too much (search-on-names.ts). */
const TOO_MUCH = (names: number) => errorBody(`Invalid value at \`.attributesToSearchOn\`: matching its ${names} names with a leading and a trailing \`*\` against the index's fields would compare more than the 12000000 characters this server accepts; send fewer such names.`,
  'invalid_search_attributes_to_search_on');

let server: TestServer;

test.before(async () => {
  server = await startTestServer({ workers: 1 });
  const { client } = server;
  // document k holds `needle` in field k (k < 20, and 998)
  const documents = [...Array.from({ length: 20 }, (_, id) => id), 998]
    .map((id) => Object.fromEntries([['id', id], ...FIELDS.map((field, k) => [field, k === id ? 'needle' : 'hay'])]));
  await client.addDocuments('wide', documents);
  await client.run('PATCH', '/indexes/wide/settings', { body: { searchableAttributes: FIELDS, filterableAttributes: FIELDS } });
  await client.addDocuments('wide_star', documents);
});

test.after.always(async () => {
  await server?.close();
});

/** The response, and the longest the front's event loop was held while it was answered (ms). */
async function timed(path: string, body: unknown): Promise<{ status: number; body: any; blockedMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const response = await server.client.post(path, body);
  histogram.disable();
  return { status: response.status, body: response.body, blockedMs: histogram.max / 1e6 };
}

const idsOf = (body: { hits: { id: number }[] }): number[] => body.hits.map((hit) => hit.id).sort((a, b) => a - b);

test.serial('names by exact field, prefix, suffix and contains select the fields milli selects; a name matching none is named in the error', async (t) => {
  const search = (attributesToSearchOn: string[]) => server.client.post('/indexes/wide/search', { q: 'needle', attributesToSearchOn, attributesToRetrieve: ['id'] });
  t.deepEqual(idsOf((await search([FIELDS[7]!])).body), [7]);
  t.deepEqual(idsOf((await search([`*${HEAD}0007*`, `*0013`, `${HEAD}0011*`, FIELDS[7]!, `*${HEAD}0007*`])).body), [7, 11, 13]);
  t.deepEqual(idsOf((await search([`${HEAD}001*`])).body), [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  t.deepEqual(idsOf((await search(['*a00*'])).body), [...Array(20).keys()]);
  t.deepEqual(idsOf((await search(['*a09*', '*98'])).body), [998]);
  const missing = await search([`${HEAD}0007*`, `*${HEAD}1999*`]);
  t.is(missing.status, 400);
  // (the name quoted to 128 characters, the whole message to 4,096: errors/echo.ts)
  const available = [...FIELDS].sort().join(', ');
  const message = `Index \`wide\`: Attribute \`*${HEAD.slice(0, 127)}…\` is not searchable. Available searchable attributes are: \`${available}\`.`;
  t.deepEqual(missing.body, errorBody(`${message.slice(0, 4096)}…`, 'invalid_search_attributes_to_search_on'));
});

test.serial('1,000 contains-names against 999 alike 400-character fields: refused at once, never holding the front or a shard', async (t) => {
  // warm-up (first requests compile code paths)
  await timed('/indexes/wide/search', { q: 'needle', attributesToSearchOn: HOSTILE.slice(0, 10) });
  const checked = await timed('/indexes/wide/search', { q: 'needle', attributesToSearchOn: HOSTILE });
  t.deepEqual(checked.body, TOO_MUCH(1000));
  // searchableAttributes `*`: the front refuses no name, but bounds the shards' matching all the same
  const restricted = await timed('/indexes/wide_star/search', { q: 'needle', attributesToSearchOn: HOSTILE, attributesToRetrieve: ['id'] });
  t.deepEqual(restricted.body, TOO_MUCH(1000));
  // fewer such names: answered, by the front's check and the shard's restriction
  const few = await timed('/indexes/wide/search', { q: 'needle', attributesToSearchOn: [...HOSTILE.slice(0, 20), `*${HEAD}0013*`], attributesToRetrieve: ['id'] });
  t.is(few.status, 200, JSON.stringify(few.body).slice(0, 300));
  t.deepEqual(idsOf(few.body), [13, 998]);
  const fewStar = await timed('/indexes/wide_star/search', { q: 'needle', attributesToSearchOn: [...HOSTILE.slice(0, 20), `*${HEAD}0013*`], attributesToRetrieve: ['id'] });
  t.deepEqual(idsOf(fewStar.body), [13, 998]);
  t.log(`front held ${checked.blockedMs.toFixed(0)} / ${restricted.blockedMs.toFixed(0)} / ${few.blockedMs.toFixed(0)} / ${fewStar.blockedMs.toFixed(0)} ms`);
  // ~720 ms of CPU before (far more on a loaded machine), a few ms after: a generous margin for one at load 20
  for (const answer of [checked, restricted, few, fewStar]) t.true(answer.blockedMs < 400, `front held ${answer.blockedMs} ms`);
});

test.serial('999 facets against 999 filterable fields of 400 characters: answered in well under a second; 1,000 `*mid*` facets refused at once', async (t) => {
  const started = performance.now();
  const answer = await timed('/indexes/wide/search', { q: 'needle', facets: FIELDS, limit: 1, attributesToRetrieve: ['id'] });
  const ms = performance.now() - started;
  t.is(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
  t.is(Object.keys(answer.body.facetDistribution).length, 999);
  t.deepEqual(answer.body.facetDistribution[FIELDS[998]!], { hay: 20, needle: 1 });
  const prefixed = await server.client.post('/indexes/wide/search', { facets: [`${HEAD}099*`, `*${HEAD}0998`], limit: 0 });
  t.deepEqual(Object.keys(prefixed.body.facetDistribution).sort(), FIELDS.slice(990).sort());
  const refused = await timed('/indexes/wide/search', { q: 'needle', facets: HOSTILE });
  t.deepEqual(refused.body, errorBody('Invalid facet distribution: matching its 1000 patterns with a leading and a trailing `*` against the index\'s fields would compare more than the 12000000 characters this server accepts; send fewer such patterns.', 'invalid_search_facets'));
  t.log(`999 facets: ${ms.toFixed(0)} ms (processingTimeMs ${answer.body.processingTimeMs}), front held ${answer.blockedMs.toFixed(0)} ms; refused in ${refused.blockedMs.toFixed(0)} ms of front`);
  // ~8.9 s before (processingTimeMs ~8,400), ~0.4 s after on a loaded machine
  t.true(ms < 3000, `999 facets took ${ms} ms`);
  t.true(refused.blockedMs < 400, `front held ${refused.blockedMs} ms`);
});
