// Regressions for what the fuzz test (test/http/fuzz.test.ts) found, one test per finding.
import test from 'ava';
import { withTestServer } from './harness.js';

// Found by seed 7, request #7533: documents/fetch with an `ids` entry of ~5 KB answered 500 "String does
// not fit in target buffer" (the LMDB key of the external-id lookup overflowed). No stored id is over 511
// bytes, so such an id is simply not found, wherever an id is looked up.
test('an id too long to be a document id is not found (fetch, browse, get, delete), never a 500', (t) =>
  withTestServer({}, async ({ client }) => {
    await client.addDocuments('ff_long_ids', [{ id: 1, title: 'one' }]);
    for (const long of ['x'.repeat(5000), 'é'.repeat(3000), JSON.stringify({ a: 'y'.repeat(6000) })]) {
      const fetched = await client.post('/indexes/ff_long_ids/documents/fetch', { ids: [long, 1] });
      t.is(fetched.status, 200, fetched.text.slice(0, 200));
      t.deepEqual(fetched.body.results, [{ id: 1, title: 'one' }]);
      const browsed = await client.get(`/indexes/ff_long_ids/documents?ids=${encodeURIComponent(long)},1`);
      t.is(browsed.status, 200, browsed.text.slice(0, 200));
      t.deepEqual(browsed.body.results, [{ id: 1, title: 'one' }]);
      const one = await client.get(`/indexes/ff_long_ids/documents/${encodeURIComponent(long)}`);
      t.is(one.status, 404, one.text.slice(0, 200));
      t.is(one.body.code, 'document_not_found');
      const deletion = await client.waitForTask(await client.enqueue('POST', '/indexes/ff_long_ids/documents/delete-batch', { body: [long] }));
      t.is(deletion.status, 'succeeded', JSON.stringify(deletion.error)?.slice(0, 200));
      t.is(deletion.details.deletedDocuments, 0);
      const single = await client.waitForTask(await client.enqueue('DELETE', `/indexes/ff_long_ids/documents/${encodeURIComponent(long)}`));
      t.is(single.status, 'succeeded', JSON.stringify(single.error)?.slice(0, 200));
    }
    t.deepEqual((await client.get('/indexes/ff_long_ids/documents')).body.results, [{ id: 1, title: 'one' }]);
  }));

// Found by `npm run fuzz -- --categories +hugeEcho` (seed 31): a facet-search whose facetQuery was 1.26
// million characters held the front's thread for minutes (an edit-distance row of the query's length per
// character of each facet value), so every other client waited. The unit test
// (test/unit/facet-query-bounds.test.ts) holds the matcher to its definition.
test('a facet-search with a million-character facetQuery answers at once and does not stall other requests', (t) =>
  withTestServer({}, async ({ client }) => {
    await client.run('PATCH', '/indexes/ff_facet_query/settings', { body: { filterableAttributes: ['genre'] } });
    await client.addDocuments('ff_facet_query', Array.from({ length: 500 }, (_, i) => ({ id: i, genre: `genre number ${i} ${'g'.repeat(i % 40)}` })));
    const started = Date.now();
    const search = client.post('/indexes/ff_facet_query/facet-search', { facetName: 'genre', facetQuery: 'genre number '.repeat(80_000) });
    const health = await client.get('/health');
    t.is(health.status, 200);
    t.true(Date.now() - started < 5000, `/health waited ${Date.now() - started} ms behind the facet search`);
    // Since request-limits.ts bounds facetQuery (1,024 characters), the huge one is a prompt 400; one at
    // the bound runs the matcher (held to its budget by test/unit/facet-query-bounds.test.ts).
    const response = await search;
    t.is(response.status, 400, response.text.slice(0, 200));
    t.is(response.body.code, 'invalid_facet_search_query');
    const atBound = await client.post('/indexes/ff_facet_query/facet-search', { facetName: 'genre', facetQuery: 'genre number '.repeat(78) + 'genre numb' });
    t.is(atBound.status, 200, atBound.text.slice(0, 200));
    t.deepEqual(atBound.body.facetHits, []);
    t.true(Date.now() - started < 10_000, `the facet searches took ${Date.now() - started} ms`);
  }));

// Found by `npm run fuzz -- --seed 18` with the known-finding categories on: a settings body with a
// `__proto__` key inside typoTolerance answered 500 "check is not a function" (the field's check was looked
// up on a plain object, so `__proto__` found Object.prototype). Names inherited from Object.prototype are
// unknown fields everywhere a body's keys are looked up in a table (settings, key PATCH, a JWT's `alg`).
test('keys named like Object.prototype members are unknown fields, never a 500', (t) =>
  withTestServer({ masterKey: 'fuzz-findings-master-key' }, async ({ client }) => {
    const admin = client.withKey('fuzz-findings-master-key');
    await admin.run('POST', '/indexes', { body: { uid: 'ff_proto' } });
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const nested = await admin.request('PATCH', '/indexes/ff_proto/settings', { raw: `{"typoTolerance":{"${name}":1}}` });
      t.is(nested.status, 400, `${name}: ${nested.text.slice(0, 200)}`);
      t.is(nested.body.code, 'invalid_settings_typo_tolerance');
      const top = await admin.request('PATCH', '/indexes/ff_proto/settings', { raw: `{"${name}":1}` });
      t.is(top.status, 400, `${name}: ${top.text.slice(0, 200)}`);
      t.is(top.body.code, 'bad_request');
      const keys = (await admin.get('/keys')).body.results as { uid: string }[];
      const patched = await admin.request('PATCH', `/keys/${keys[0]!.uid}`, { raw: `{"${name}":1}` });
      t.is(patched.status, 400, `${name}: ${patched.text.slice(0, 200)}`);
      const token = `${Buffer.from(JSON.stringify({ alg: name, typ: 'JWT' })).toString('base64url')}.${Buffer.from('{"apiKeyUid":"x","searchRules":["*"]}').toString('base64url')}.c2ln`;
      const search = await client.withKey(token).post('/indexes/ff_proto/search', { q: 'a' });
      t.is(search.status, 403, `${name}: ${search.text.slice(0, 200)}`);
    }
  }));
