import test from 'ava';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDataset } from '../../bench/dataset.js';
import { encodeBatch } from '../../bench/loader.js';
import { PayloadCacheReader, cacheFileName, preparePayloadCache } from '../../bench/payload-cache.js';

const spec = { kind: 'movies', documents: 1200, seed: 7, vocabularySize: 2000, zipfExponent: 1 };

function withDirectory(run: (directory: string) => void): void {
  const directory = mkdtempSync(join(tmpdir(), 'payload-cache-'));
  try {
    run(directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

test('batches read back from the cache are the bytes the encoder makes', (t) => {
  withDirectory((directory) => {
    const dataset = createDataset(spec);
    const cache = preparePayloadCache(directory, dataset, 500, 'ndjson', encodeBatch);
    t.false(cache.reused);
    const reader = new PayloadCacheReader(cache);
    t.is(reader.batchCount, 3);
    for (const [k, [start, end]] of [[0, 500], [500, 1000], [1000, 1200]].entries()) {
      t.deepEqual(reader.batch(k), encodeBatch(dataset, start, end, 'ndjson'));
    }
    reader.close();
  });
});

test('the cache is keyed by dataset, batch size and format, and reused when they match', (t) => {
  withDirectory((directory) => {
    const dataset = createDataset(spec);
    const first = preparePayloadCache(directory, dataset, 500, 'json', encodeBatch);
    t.true(preparePayloadCache(directory, dataset, 500, 'json', encodeBatch).reused);
    t.false(preparePayloadCache(directory, dataset, 400, 'json', encodeBatch).reused);
    t.false(preparePayloadCache(directory, createDataset({ ...spec, seed: 8 }), 500, 'json', encodeBatch).reused);
    t.not(cacheFileName(dataset, 500, 'json'), cacheFileName(dataset, 500, 'ndjson'));
    t.is(first.path, join(directory, cacheFileName(dataset, 500, 'json')));
  });
});

test('a cache whose sample documents no longer match the generator is regenerated', (t) => {
  withDirectory((directory) => {
    const dataset = createDataset(spec);
    const cache = preparePayloadCache(directory, dataset, 500, 'json', encodeBatch);
    const indexPath = `${cache.path}.index.json`;
    const index = JSON.parse(readFileSync(indexPath, 'utf8')) as { sample: Record<string, string> };
    index.sample['0'] = '{"id":"changed"}';
    writeFileSync(indexPath, JSON.stringify(index));
    const again = preparePayloadCache(directory, dataset, 500, 'json', encodeBatch);
    t.false(again.reused);
    t.true(preparePayloadCache(directory, dataset, 500, 'json', encodeBatch).reused);
  });
});
