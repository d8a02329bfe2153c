// Issue 18: every size a request controls is bounded, with a Meilisearch-style 400 (or 413) instead of
// a dead worker, a 500, a blocked front thread or a body echoing megabytes. One part per finding:
// A search parameter sizes, B nesting depth and query batch isolation, C linear projection and settings,
// D echoed values and decompression, E offset + limit past 2^32. Serial: C measures latencies.
import test from 'ava';
import { gzipSync } from 'node:zlib';
import { startTestServer, type HttpResponse, type TestServer } from './harness.js';

let server: TestServer;
let small: TestServer;

/** 20 documents of 600 fields each (300 nested objects), for the projection and settings parts. */
function wideDocuments(): Record<string, unknown>[] {
  return Array.from({ length: 20 }, (_, i) => {
    const document: Record<string, unknown> = { id: i, title: `hello number ${i}`, color: i % 2 === 0 ? 'red' : 'blue' };
    for (let k = 0; k < 300; k++) document[`f${k}`] = { v: k, w: `w${k}` };
    return document;
  });
}

test.before(async () => {
  [server, small] = await Promise.all([
    startTestServer({ workers: 2, shardsPerIndex: 2 }),
    startTestServer({ workers: 1, shardsPerIndex: 1, httpPayloadSizeLimit: 100_000 }),
  ]);
  const { client } = server;
  await client.addDocuments('bounds', [
    { id: 1, title: 'hello world', color: 'red' },
    { id: 2, title: 'hello there', color: 'blue' },
    { id: 3, title: 'goodbye world', color: 'red' },
  ]);
  await client.run('PATCH', '/indexes/bounds/settings', { body: { filterableAttributes: ['color'] } });
  await client.addDocuments('wide', wideDocuments());
  await client.addDocuments('other', [{ id: 1, title: 'hello other' }]);
});
test.after.always(async () => {
  await Promise.all([server?.close(), small?.close()]);
});

function isError(t: any, response: HttpResponse, status: number, code: string, message?: RegExp): void {
  t.is(response.status, status, response.text.slice(0, 300));
  t.is(response.body?.code, code, response.text.slice(0, 300));
  if (message) t.regex(response.body?.message ?? '', message);
  // Whatever the request held, the error body stays small.
  t.true(response.text.length < 5000, `error body of ${response.text.length} characters`);
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

// ---- A: search parameter sizes -------------------------------------------------------------------

test.serial('A: a 2 MiB highlightPreTag is a 400 invalid_search_highlight_pre_tag, and the worker keeps answering', async (t) => {
  const { client } = server;
  const response = await client.post('/indexes/bounds/search', {
    q: 'hello', attributesToHighlight: ['*'], highlightPreTag: 'x'.repeat(2 * 1024 * 1024),
  });
  isError(t, response, 400, 'invalid_search_highlight_pre_tag',
    /^Invalid value at `\.highlightPreTag`: the value is 2097152 characters long, more than the 1024 this server accepts\.$/);
  const tag = 'y'.repeat(1024);
  const ok = await client.post('/indexes/bounds/search', { q: 'hello', attributesToHighlight: ['title'], highlightPreTag: tag, highlightPostTag: '</y>' });
  t.is(ok.status, 200, ok.text.slice(0, 300));
  t.is(ok.body.hits.length, 2);
  t.true(ok.body.hits[0]._formatted.title.startsWith(`${tag}hello</y>`));
});

test.serial('A: every request-sized search parameter is bounded, POST and GET alike, with its own code', async (t) => {
  const { client } = server;
  const long = (n: number) => 'a'.repeat(n);
  const names = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ highlightPostTag: long(1025) }, 'invalid_search_highlight_post_tag'],
    [{ cropMarker: long(5000) }, 'invalid_search_crop_marker'],
    [{ q: long(20_000) }, 'invalid_search_q'],
    [{ filter: `color = ${long(100_001)}` }, 'invalid_search_filter'],
    [{ filter: Array.from({ length: 2001 }, () => 'color = red') }, 'invalid_search_filter'],
    [{ filter: [Array.from({ length: 2001 }, () => 'color = red')] }, 'invalid_search_filter'],
    [{ facets: names(1001) }, 'invalid_search_facets'],
    [{ attributesToRetrieve: names(1001) }, 'invalid_search_attributes_to_retrieve'],
    [{ attributesToHighlight: names(1001) }, 'invalid_search_attributes_to_highlight'],
    [{ attributesToCrop: names(1001) }, 'invalid_search_attributes_to_crop'],
    [{ attributesToSearchOn: names(1001) }, 'invalid_search_attributes_to_search_on'],
    [{ attributesToRetrieve: [long(1025)] }, 'invalid_search_attributes_to_retrieve'],
    [{ sort: names(1001).map((name) => `${name}:asc`) }, 'invalid_search_sort'],
    [{ distinct: long(1025) }, 'invalid_search_distinct'],
  ];
  for (const [body, code] of cases) {
    isError(t, await client.post('/indexes/bounds/search', body), 400, code, /this server accepts\.$/);
  }
  const get = await client.get(`/indexes/bounds/search?cropMarker=${long(2000)}`);
  isError(t, get, 400, 'invalid_search_crop_marker', /^Invalid value in parameter `cropMarker`: the value is 2000 characters long/);
  const getList = await client.get(`/indexes/bounds/search?attributesToRetrieve=${names(1001).join(',')}`);
  isError(t, getList, 400, 'invalid_search_attributes_to_retrieve');
  const facet = await client.post('/indexes/bounds/facet-search', { facetName: 'color', facetQuery: long(1025) });
  isError(t, facet, 400, 'invalid_facet_search_query', /^Invalid value at `\.facetQuery`/);
  const multi = await client.post('/multi-search', { queries: Array.from({ length: 1001 }, () => ({ indexUid: 'bounds' })) });
  isError(t, multi, 400, 'bad_request', /the list has 1001 queries, more than the 1000/);
  const inMulti = await client.post('/multi-search', { queries: [{ indexUid: 'bounds' }, { indexUid: 'bounds', cropMarker: long(1025) }] });
  isError(t, inMulti, 400, 'invalid_search_crop_marker', /^Invalid value at `\.queries\[1\]\.cropMarker`/);
  // At the bounds, searches are fine.
  const atBounds = await client.post('/indexes/bounds/search', { q: long(16_384), cropMarker: long(1024), attributesToRetrieve: names(1000) });
  t.is(atBounds.status, 200, atBounds.text.slice(0, 300));
});

test.serial('A: highlight tags x matches x hits stay bounded: past 16 Mi tag characters per shard worker, matches are left untagged', async (t) => {
  const { client } = server;
  // 100 hits of 200 matches with 2 KiB of tags each: 40 Mi characters of tags asked for, ~20 Mi per worker.
  const text = Array.from({ length: 200 }, () => 'hello').join(' ');
  await client.addDocuments('tags', Array.from({ length: 100 }, (_, i) => ({ id: i, text })));
  const pre = '<'.repeat(1023) + '[';
  const post = ']' + '>'.repeat(1023);
  const response = await client.post('/indexes/tags/search', { q: 'hello', limit: 100, attributesToHighlight: ['text'], highlightPreTag: pre, highlightPostTag: post });
  t.is(response.status, 200);
  t.is(response.body.hits.length, 100);
  let tagged = 0;
  for (const hit of response.body.hits) {
    const formatted: string = hit._formatted.text;
    tagged += formatted.split(`${pre}hello${post}`).length - 1;
    // Untagged or tagged, the text is all there.
    t.is(formatted.split(pre).join('').split(post).join(''), text);
  }
  // Each of the 2 workers tags at most 8,192 matches (16 Mi / 2 KiB); before: all 20,000.
  t.true(tagged <= 2 * 8192, `${tagged} matches tagged`);
  t.true(tagged >= 8192, `${tagged} matches tagged`);
  t.true(response.text.length < 36 * 1024 * 1024, `${response.text.length} characters`);
});

// ---- B: nesting depth, query batch isolation ----------------------------------------------------------

const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

test.serial('B: a JSON body nested 100,000 levels is a 400 malformed_payload on every JSON route, as serde_json refuses it', async (t) => {
  const { client } = server;
  const routes: Array<[string, string, string]> = [
    ['POST', '/indexes/bounds/search', `{"q":${deep(100_000)}}`],
    ['POST', '/multi-search', `{"queries":[{"indexUid":"bounds","hybrid":${deep(100_000)}}]}`],
    ['PATCH', '/indexes/bounds/settings', `{"displayedAttributes":${deep(100_000)}}`],
    ['POST', '/indexes/bounds/documents/fetch', `{"fields":${deep(100_000)}}`],
    ['POST', '/indexes/bounds/documents/delete', `{"filter":${deep(100_000)}}`],
    ['POST', '/indexes/bounds/facet-search', `{"facetName":${deep(100_000)}}`],
    ['POST', '/indexes', `{"uid":${deep(100_000)}}`],
  ];
  for (const [method, path, raw] of routes) {
    const response = await client.request(method, path, { raw, contentType: 'application/json' });
    isError(t, response, 400, 'malformed_payload', /^The json payload provided is malformed\. `recursion limit exceeded at line 1 column \d+`\.$/);
  }
  // serde's limit: 127 levels pass, the 128th opener fails (column 128 of `[[[...`).
  const at = await client.request('POST', '/indexes/bounds/documents/delete-batch', { raw: deep(128), contentType: 'application/json' });
  isError(t, at, 400, 'malformed_payload', /column 128`/);
  const under = await client.request('POST', '/indexes/bounds/search', { raw: `{"hybrid":${deep(120)}}`, contentType: 'application/json' });
  t.not(under.status, 500, under.text.slice(0, 300));
  // A document payload: malformed too (the decoder's message), never a 500.
  const documents = await client.request('POST', '/indexes/bounds/documents', { raw: `[{"id":9,"a":${deep(100_000)}}]`, contentType: 'application/json' });
  isError(t, documents, 400, 'malformed_payload', /^The `json` payload provided is malformed\. `Couldn't serialize document value: recursion limit exceeded at line 1 column \d+`\.$/);
  const ndjson = await client.request('POST', '/indexes/bounds/documents', { raw: `{"id":9,"a":${deep(100_000)}}\n`, contentType: 'application/x-ndjson' });
  isError(t, ndjson, 400, 'malformed_payload');
});

test.serial('B: a deep filter expression is invalid_search_filter, with the filter parser\'s depth message', async (t) => {
  const response = await server.client.post('/indexes/bounds/search', { filter: `${'('.repeat(5000)}color = red${')'.repeat(5000)}` });
  isError(t, response, 400, 'invalid_search_filter', /^The filter exceeded the maximum depth limit\. Try rewriting the filter so that it contains fewer nested conditions\./);
});

test.serial('B: a deep-JSON query never fails the searches sharing its query batch, and later searches succeed', async (t) => {
  const { client } = server;
  for (let round = 0; round < 5; round++) {
    const [bad, badMulti, ...good] = await Promise.all([
      client.request('POST', '/indexes/bounds/search', { raw: `{"q":"hello","hybrid":${deep(100_000)}}`, contentType: 'application/json' }),
      client.request('POST', '/multi-search', {
        raw: `{"queries":[{"indexUid":"bounds","q":"hello"},{"indexUid":"bounds","vector":${deep(100_000)}}]}`, contentType: 'application/json',
      }),
      client.post('/multi-search', { queries: [{ indexUid: 'bounds', q: 'hello' }, { indexUid: 'other', q: 'hello' }, { indexUid: 'bounds', q: 'world' }] }),
      ...Array.from({ length: 6 }, () => client.post('/indexes/bounds/search', { q: 'hello' })),
    ]);
    isError(t, bad!, 400, 'malformed_payload');
    isError(t, badMulti!, 400, 'malformed_payload');
    for (const response of good) t.is(response.status, 200, response.text.slice(0, 300));
    t.deepEqual(good[0]!.body.results.map((result: any) => result.hits.length), [2, 1, 2]);
  }
  const later = await client.post('/indexes/bounds/search', { q: 'world' });
  t.is(later.status, 200);
  t.is(later.body.hits.length, 2);
});

// ---- C: linear projection and settings; the front thread stays free ----------------------------

test.serial('C: 65,536 documents/fetch fields are a prompt 400 invalid_document_fields, and /health answers meanwhile', async (t) => {
  const { client } = server;
  const fields = Array.from({ length: 65_536 }, (_, i) => `f${i}.v`);
  const heavy = timed(() => client.post('/indexes/wide/documents/fetch', { fields, limit: 20 }));
  const health = timed(() => client.get('/health'));
  const [fetched, healthy] = await Promise.all([heavy, health]);
  isError(t, fetched.value, 400, 'invalid_document_fields', /^Invalid value at `\.fields`: the list has 65536 entries, more than the 1000 this server accepts\.$/);
  t.is(healthy.value.status, 200);
  // Before: 9.6 s for the fetch, /health waiting as long. Generous margins for a shared machine.
  t.true(healthy.ms < 2000, `/health took ${healthy.ms.toFixed(0)} ms`);
  const query = await client.get(`/indexes/wide/documents?fields=${fields.slice(0, 1001).join(',')}`);
  isError(t, query, 400, 'invalid_document_fields', /^Invalid value in parameter `fields`/);
  // 1,000 fields over 600-field documents: linear, and right.
  const thousand = await timed(() => client.post('/indexes/wide/documents/fetch', { fields: ['id', ...fields.slice(0, 998), 'f7'], limit: 20 }));
  t.is(thousand.value.status, 200);
  t.is(thousand.value.body.results.length, 20);
  t.is(Object.keys(thousand.value.body.results[3]).length, 301); // id and f0..f299
  t.is(thousand.value.body.results[3].f998, undefined);
  t.deepEqual(thousand.value.body.results[3].f7, { v: 7, w: 'w7' });
  t.deepEqual(thousand.value.body.results[3].f8, { v: 8 });
  t.is(thousand.value.body.results[3].title, undefined);
  t.true(thousand.ms < 5000, `1,000 fields took ${thousand.ms.toFixed(0)} ms`);
});

test.serial('C: settings with 10,000 attributes per list apply in seconds without holding up another index; 10,001 is a 400', async (t) => {
  const { client } = server;
  const names = Array.from({ length: 10_000 }, (_, i) => `f${i}.v`);
  const over = await client.patch('/indexes/wide/settings', { searchableAttributes: [...names, 'title'] });
  isError(t, over, 400, 'invalid_settings_searchable_attributes', /^Invalid value at `\.searchableAttributes`: the list has 10001 entries, more than the 10000 this server accepts\.$/);
  const subRoute = await client.put('/indexes/wide/settings/sortable-attributes', [...names, 'x']);
  isError(t, subRoute, 400, 'invalid_settings_sortable_attributes', /^Invalid value: the list has 10001 entries/);
  const filterRules = await client.patch('/indexes/wide/settings', { filterableAttributes: [{ attributePatterns: [...names, 'x'] }] });
  isError(t, filterRules, 400, 'invalid_settings_filterable_attributes');
  const started = performance.now();
  const uid = await client.enqueue('PATCH', '/indexes/wide/settings', {
    body: { searchableAttributes: names, filterableAttributes: names, sortableAttributes: names, displayedAttributes: ['id', ...names.slice(1)] },
  });
  // Searches on another index meanwhile (before: the shard worker was busy for the whole update, ~30 s at 10,000).
  let worst = 0;
  let finished = false;
  const task = client.waitForTask(uid, 60_000).finally(() => { finished = true; });
  while (!finished) {
    const search = await timed(() => client.post('/indexes/other/search', { q: 'hello' }));
    t.is(search.value.status, 200);
    worst = Math.max(worst, search.ms);
    await new Promise((done) => setTimeout(done, 20));
  }
  const done = await task;
  t.is(done.status, 'succeeded', JSON.stringify(done.error));
  const elapsed = performance.now() - started;
  t.true(elapsed < 15_000, `the update took ${elapsed.toFixed(0)} ms`);
  t.true(worst < 8000, `a search of another index waited ${worst.toFixed(0)} ms`);
  const filtered = await client.post('/indexes/wide/search', { filter: 'f5.v = 5', attributesToRetrieve: ['id', 'f5'] });
  t.is(filtered.status, 200, filtered.text.slice(0, 300));
  t.is(filtered.body.estimatedTotalHits, 20);
  t.deepEqual(filtered.body.hits[0], { id: 0, f5: { v: 5 } });
});

// ---- D: echoed values, decompression ------------------------------------------------------------

test.serial('D: an error quotes at most 128 characters of what was sent, however much it was', async (t) => {
  const { client } = server;
  const huge = 'x'.repeat(5 * 1024 * 1024);
  const response = await client.post('/indexes/bounds/search', { q: [huge] });
  isError(t, response, 400, 'invalid_search_q');
  t.is(response.body.message, `Invalid value type at \`.q\`: expected a string, but found an array: \`["${'x'.repeat(126)}…\``);
  const unknown = await client.post('/indexes/bounds/search', { [huge]: 1 });
  isError(t, unknown, 400, 'bad_request', /^Unknown field `x{128}…`: expected one of `q`/);
  const index = await client.get(`/indexes/${'é'.repeat(3000)}`);
  t.is(index.status, 400);
  t.true(index.text.length < 5000);
  const sort = await client.post('/indexes/bounds/search', { sort: [`${'s'.repeat(1000)}`] });
  isError(t, sort, 400, 'invalid_search_sort', /found `s{128}…`/);
  const deepValue = await client.request('POST', '/indexes/bounds/search', { raw: `{"limit":${deep(100)}}`, contentType: 'application/json' });
  isError(t, deepValue, 400, 'invalid_search_limit', /but found an array: `\[\[\[/);
});

test.serial('D: a 97 KB gzip body inflating to 95 MiB answers a short 400, and past the payload limit a 413', async (t) => {
  const inflated = Buffer.from(JSON.stringify({ limit: 'y'.repeat(95 * 1024 * 1024) }));
  const compressed = gzipSync(inflated, { level: 9 });
  t.true(compressed.length < 200_000);
  const response = await server.client.request('POST', '/indexes/bounds/search', {
    raw: compressed, contentType: 'application/json', headers: { 'content-encoding': 'gzip' },
  });
  isError(t, response, 400, 'invalid_search_limit', /^Invalid value type at `\.limit`: expected a positive integer, but found a string: `"y{127}…`$/);
  // The small server's limit is 100,000 bytes: a bomb stops there.
  const bomb = await small.client.request('POST', '/indexes/bounds/search', {
    raw: gzipSync(Buffer.from(JSON.stringify({ q: 'z'.repeat(10 * 1024 * 1024) }))), contentType: 'application/json', headers: { 'content-encoding': 'gzip' },
  });
  isError(t, bomb, 413, 'payload_too_large', /^The provided payload reached the size limit\. The maximum accepted payload size is 100 KB\.$/);
  const documents = await small.client.request('POST', '/indexes/bounds/documents', {
    raw: gzipSync(Buffer.from(JSON.stringify([{ id: 1, q: 'z'.repeat(10 * 1024 * 1024) }]))), contentType: 'application/json', headers: { 'content-encoding': 'gzip' },
  });
  isError(t, documents, 413, 'payload_too_large');
});

// ---- E: offset + limit past 2^32 -----------------------------------------------------------------

test.serial('E: limit 2^32 on documents/fetch, GET /documents and search returns every document, never wraps to none', async (t) => {
  const { client } = server;
  const huge = 2 ** 32;
  const cases: Array<[string, Promise<HttpResponse>]> = [
    ['fetch', client.post('/indexes/bounds/documents/fetch', { limit: huge })],
    ['fetch filter', client.post('/indexes/bounds/documents/fetch', { limit: huge, filter: 'color = red OR color = blue' })],
    ['fetch filter offset', client.post('/indexes/bounds/documents/fetch', { offset: 1, limit: huge - 1, filter: 'color EXISTS' })],
    ['GET filter', client.get(`/indexes/bounds/documents?limit=${huge}&filter=color%20EXISTS`)],
    ['GET', client.get(`/indexes/bounds/documents?limit=${huge}`)],
  ];
  for (const [label, pending] of cases) {
    const response = await pending;
    t.is(response.status, 200, `${label}: ${response.text.slice(0, 300)}`);
    t.is(response.body.total, 3, label);
    t.is(response.body.results.length, label.includes('offset') ? 2 : 3, label);
  }
  await client.run('PATCH', '/indexes/bounds/settings', { body: { pagination: { maxTotalHits: Number.MAX_SAFE_INTEGER } } });
  try {
    const search = await client.post('/indexes/bounds/search', { limit: huge, filter: 'color EXISTS' });
    t.is(search.status, 200, search.text.slice(0, 300));
    t.is(search.body.hits.length, 3);
    const paged = await client.post('/indexes/bounds/search', { hitsPerPage: huge, page: 1 });
    t.is(paged.status, 200, paged.text.slice(0, 300));
    t.is(paged.body.hits.length, 3);
    const facets = await client.post('/indexes/bounds/search', { offset: 1, limit: huge, facets: ['color'] });
    t.is(facets.body.hits.length, 2);
    t.deepEqual(facets.body.facetDistribution, { color: { blue: 1, red: 2 } });
  } finally {
    await client.run('PATCH', '/indexes/bounds/settings', { body: { pagination: null } });
  }
});
