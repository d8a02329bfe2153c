// The shard worker's write-path warm-up (src/shard/warm-up.ts warmUpWritePaths): it ends without error,
// a batch or a bounded run of build steps per macrotask (other work runs between them), and its
// documents index and search as a real index's would.
import test from 'ava';
import { ShardEngine } from '../../src/shard/shard-engine.js';
import { warmUpWritePaths, writeWarmUpDocuments } from '../../src/shard/warm-up.js';

test('the write warm-up ends without error and lets other macrotasks run between its steps', async (t) => {
  let turns = 0;
  let finished = false;
  const probe = (): void => {
    turns++;
    if (!finished) setImmediate(probe);
  };
  setImmediate(probe);
  const error = await new Promise<Error | null>((resolve) => warmUpWritePaths(resolve, 2_000));
  finished = true;
  t.is(error, null);
  // 20 write batches of 100 documents and the build's runs: the probe ran between them.
  t.true(turns >= 20, `the probe ran ${turns} times`);
});

test('the warm-up documents are the same each time and index as any documents', (t) => {
  const documents = writeWarmUpDocuments(500);
  t.deepEqual(writeWarmUpDocuments(500), documents);
  t.is(new Set(documents.map((document) => document.id)).size, 500);
  t.true(documents.some((document) => /[^\x00-\x7f]/.test(String(document.summary))), 'some text is not ASCII');
  const engine = new ShardEngine(0, 1, null);
  engine.loadIndex('w', 1, { searchableAttributes: ['name', 'summary'] }, documents.map((document) => [document.id as number, document]));
  engine.prepareForSearch();
  const name = String(documents[7]!.name);
  const result = engine.search({ indexUid: 'w', shards: [0], q: name, hitsWanted: 1000, matchingStrategy: 'all', options: {} });
  t.true(result.hits.some((hit) => hit.docId === 7), `"${name}" finds its document`);
});
