import test from 'ava';
import { StoredDocumentCache } from '../../src/front/indexes/stored-document-cache.js';
import type { StoredDocumentSource } from '../../src/front/indexes/stored-document-cache.js';

/**
 * A store that counts its reads and, like LMDB's getBinaryFast, hands out ONE buffer it overwrites
 * on the next read: the cache must copy what it keeps.
 */
function countingStore(texts: Map<string, string>) {
  const reads: string[] = [];
  const reused = Buffer.alloc(1024);
  const store: StoredDocumentSource = {
    getBinaryFast([indexUid, docId]) {
      reads.push(`${indexUid}/${docId}`);
      const text = texts.get(`${indexUid}/${docId}`);
      if (text === undefined) return undefined;
      reused.fill(0x21);
      // Like LMDB's fast buffer: the value's length, over a larger view (what TypedArray.set sees).
      const length = reused.write(text);
      return Object.defineProperty(reused.subarray(0), 'length', { value: length });
    },
  };
  return { store, reads };
}

/** The cached document as text. */
function textOf(cache: StoredDocumentCache, key: [string, number]): string | undefined {
  const bytes = cache.get(key);
  return bytes === undefined ? undefined : Buffer.from(bytes).toString();
}

test('a document is read from the store once, then from the cache', (t) => {
  const { store, reads } = countingStore(new Map([['movies/1', '{"id":1}']]));
  const cache = new StoredDocumentCache(store);
  t.is(textOf(cache, ['movies', 1]), '{"id":1}');
  t.is(textOf(cache, ['movies', 1]), '{"id":1}');
  t.deepEqual(reads, ['movies/1']);
});

test('a missing document is not cached: it is read again', (t) => {
  const texts = new Map<string, string>();
  const { store, reads } = countingStore(texts);
  const cache = new StoredDocumentCache(store);
  t.is(textOf(cache, ['movies', 7]), undefined);
  texts.set('movies/7', '{"id":7}');
  t.is(textOf(cache, ['movies', 7]), '{"id":7}');
  t.is(reads.length, 2);
});

test('forget drops the index\'s documents only, and the next read sees the new text', (t) => {
  const texts = new Map([['movies/1', '{"v":1}'], ['books/1', '{"b":1}']]);
  const { store, reads } = countingStore(texts);
  const cache = new StoredDocumentCache(store);
  cache.get(['movies', 1]);
  cache.get(['books', 1]);
  texts.set('movies/1', '{"v":2}');
  cache.forget(['movies']);
  t.is(textOf(cache, ['movies', 1]), '{"v":2}');
  t.is(textOf(cache, ['books', 1]), '{"b":1}');
  t.deepEqual(reads, ['movies/1', 'books/1', 'movies/1']);
  t.is(cache.heldBytes, '{"v":2}'.length + '{"b":1}'.length);
});

test('the budget holds: documents not asked for two generations are read again, those asked meanwhile are kept', (t) => {
  const texts = new Map(Array.from({ length: 10 }, (_, i) => [`m/${i}`, `{"i":${i}}`.padEnd(10, ' ')]));
  const { store, reads } = countingStore(texts);
  const cache = new StoredDocumentCache(store, null, 60); // three 10-byte documents per generation
  for (const docId of [0, 1, 2]) cache.get(['m', docId]); // generation A
  for (const docId of [3, 4, 5]) cache.get(['m', docId]); // B; A becomes previous
  cache.get(['m', 0]); // from the previous generation, into a new one, C: B becomes the previous one and A (1, 2) goes
  for (const docId of [6, 7]) cache.get(['m', docId]); // C is full
  reads.length = 0;
  t.is(textOf(cache, ['m', 0]), texts.get('m/0'));
  t.is(textOf(cache, ['m', 5]), texts.get('m/5'));
  t.deepEqual(reads, [], '0 moved into the current generation, 5 is in the previous one');
  cache.get(['m', 1]);
  t.deepEqual(reads, ['m/1'], '1 was evicted');
  t.true(cache.heldBytes <= 30);
});

test('what the cache returned stays intact after later reads reuse the store\'s buffer, multi-byte text included', (t) => {
  const texts = new Map([['m/1', '{"t":"é🙂"}'], ['m/2', '{"t":"other"}']]);
  const { store } = countingStore(texts);
  const cache = new StoredDocumentCache(store);
  const first = cache.get(['m', 1])!;
  cache.get(['m', 2]);
  t.is(Buffer.from(first).toString(), '{"t":"é🙂"}');
  t.is(first.length, Buffer.byteLength('{"t":"é🙂"}'));
});

// Found by `npm run fuzz -- --seed 2026` (request #20484, a 200 whose JSON did not parse): a document over
// a quarter of a slab (1 MiB) was kept with Buffer#slice, which on a Buffer is a view, not a copy, so the
// store's next read rewrote the cached bytes. Sizes around both copy thresholds (a quarter of a slab,
// half the budget).
test('documents over a quarter of a slab, and over half the budget, stay intact after later reads', (t) => {
  const big = `{"id":1,"t":"${'x'.repeat(2 * 2 ** 20)}"}`;
  const texts = new Map([['m/1', big], ['m/2', '{"id":2}']]);
  const reads: string[] = [];
  const reused = Buffer.alloc(4 * 2 ** 20);
  const store: StoredDocumentSource = {
    getBinaryFast([indexUid, docId]) {
      reads.push(`${indexUid}/${docId}`);
      const text = texts.get(`${indexUid}/${docId}`);
      if (text === undefined) return undefined;
      const length = reused.write(text);
      // A Buffer, as LMDB returns: Buffer#slice on it would share memory.
      return Object.defineProperty(reused.subarray(0), 'length', { value: length });
    },
  };
  for (const budget of [128 * 2 ** 20, 2 * 2 ** 20]) {
    const cache = new StoredDocumentCache(store, null, budget);
    const first = cache.get(['m', 1])!;
    cache.get(['m', 2]);
    t.is(first.length, big.length);
    t.true(Buffer.from(first).toString() === big, `budget ${budget}: the cached bytes changed`);
  }
});

test('sparse doc ids (one document per page of slots) flip generations by the pages\' own budget, not past it', (t) => {
  const texts = new Map(Array.from({ length: 3000 }, (_, k) => [`m/${k * 1000}`, '1']));
  const { store, reads } = countingStore(texts);
  const cache = new StoredDocumentCache(store, null, 1024 * 1024); // 3,000 bytes of documents: far under the budget
  for (let k = 0; k < 3000; k++) cache.get(['m', k * 1000]);
  t.true(cache.documentCount < 2000, `${cache.documentCount} documents held: their pages bound them`);
  t.true(cache.documentCount > 500);
  reads.length = 0;
  cache.get(['m', 0]);
  t.deepEqual(reads, ['m/0'], 'the first ones were dropped with their generation');
  cache.get(['m', 2999 * 1000]);
  t.is(cache.documentCount > 0 && reads.length, 1, 'the last one is held');
});
