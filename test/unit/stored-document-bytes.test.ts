// Hits' stored JSON read as bytes (stored-document-bytes.ts) from the real documents database, and
// written into the query answer as they are: the front decodes the very text that was stored.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { StoredDocumentBytes } from '../../src/shard/stored-document-bytes.js';
import { closeStorage, openStorage } from '../../src/storage/environment.js';
import { decodeQueryBatchResult, encodeQueryBatchResult } from '../../src/protocol/query-codec.js';

test('stored documents come back as their exact bytes, batch after batch, and survive the answer encoding', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'skein-docbytes-'));
  const storage = openStorage(dir);
  try {
    // Small and large (past the arena's first size, and past lmdb-js's shared buffer), non-ASCII text.
    const texts = ['{"id":0}', JSON.stringify({ id: 1, title: 'crème brûlée ☕ 𝄞' }), JSON.stringify({ id: 2, body: 'x'.repeat(70_000) }),
      JSON.stringify({ id: 3, body: 'é'.repeat(400_000) }), JSON.stringify({ id: 4, title: 'last' })];
    storage.root.transactionSync(() => texts.forEach((text, docId) => storage.documents.putSync(['idx', docId], text)));
    const bytes = new StoredDocumentBytes(storage.documents);
    const decoder = new TextDecoder();
    for (let batch = 0; batch < 3; batch++) {
      bytes.startBatch();
      const order = batch === 1 ? [4, 3, 2, 1, 0, 0] : [0, 1, 2, 3, 4, 1];
      // Every view of the batch stays valid while the others are read.
      const views = order.map((docId) => bytes.read(['idx', docId])!);
      t.deepEqual(views.map((view) => decoder.decode(view)), order.map((docId) => texts[docId]));
      t.is(bytes.read(['idx', 99]), undefined);
      const hits = views.map((document, k) => ({ docId: order[k]!, score: [k], document }));
      const [decoded] = decodeQueryBatchResult(encodeQueryBatchResult([{ requestId: batch, error: null, candidates: 6, hits, extras: null }]));
      t.deepEqual(decoded!.hits.map((hit) => hit.document), order.map((docId) => texts[docId]));
    }
  } finally {
    await closeStorage(storage);
    rmSync(dir, { recursive: true, force: true });
  }
});
