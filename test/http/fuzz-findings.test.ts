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
