import test from 'ava';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDataset } from '../../bench/dataset.js';
import { encodeBatch, loadDataset } from '../../bench/loader.js';
import { SkeinHttpClient } from '../../bench/skein-http.js';
import { startStandIn } from './bench-stand-in-server.js';

const dataset = createDataset({ kind: 'movies', documents: 2500, seed: 1, vocabularySize: 3000, zipfExponent: 1 });
const options = { indexUid: 'bench', settings: {}, batchSize: 1000, format: 'json' as const, taskTimeoutSeconds: 10 };

test('batches encode as a JSON array or as NDJSON lines', (t) => {
  const json = JSON.parse(encodeBatch(dataset, 0, 3, 'json').toString());
  t.deepEqual(json, [dataset.documentAt(0), dataset.documentAt(1), dataset.documentAt(2)]);
  const lines = encodeBatch(dataset, 0, 3, 'ndjson').toString().trimEnd().split('\n');
  t.deepEqual(lines.map((line) => JSON.parse(line)), json);
});

test('loads every document in batches and waits for every task', async (t) => {
  const standIn = await startStandIn({ taskDelayMs: 50 });
  try {
    const result = await loadDataset(new SkeinHttpClient(standIn.baseUrl), dataset, { ...options, settings: { searchableAttributes: ['title'] } });
    t.is(standIn.documentCount, 2500);
    t.deepEqual(standIn.settings, [{ searchableAttributes: ['title'] }]);
    t.is(result.batches, 3);
    t.is(result.documents, 2500);
    t.is(result.indexedDocuments, 2500);
    t.is(result.taskUids.length, 3);
    t.true(result.totalSeconds >= 0.05);
    t.true(result.documentsPerSecond > 0);
    t.not(result.serverProcessingSeconds, null);
    t.deepEqual(standIn.contentTypes, ['application/json', 'application/json', 'application/json']);
  } finally {
    await standIn.close();
  }
});

test('NDJSON payloads are sent with their content type', async (t) => {
  const standIn = await startStandIn();
  try {
    await loadDataset(new SkeinHttpClient(standIn.baseUrl), dataset, { ...options, format: 'ndjson' });
    t.is(standIn.documentCount, 2500);
    t.true(standIn.contentTypes.every((type) => type === 'application/x-ndjson'));
  } finally {
    await standIn.close();
  }
});

test('a failed task stops the load with its error', async (t) => {
  const standIn = await startStandIn({ failDocuments: true });
  try {
    await t.throwsAsync(loadDataset(new SkeinHttpClient(standIn.baseUrl), dataset, options), { message: /failed: .*invalid_document_id/ });
  } finally {
    await standIn.close();
  }
});

test('large datasets stream from a cache file generated before the clock and reused by the next run', async (t) => {
  const cacheDirectory = mkdtempSync(join(tmpdir(), 'bench-cache-'));
  const standIn = await startStandIn();
  try {
    const streamOptions = { ...options, streamAboveDocuments: 1000, cacheDirectory };
    const first = await loadDataset(new SkeinHttpClient(standIn.baseUrl), dataset, streamOptions);
    t.true(first.streamed);
    t.false(first.payloadCache?.reused);
    t.is(standIn.documentCount, 2500);
    t.is(first.batches, 3);
    t.true(first.payloadBytes > 2500 * 100);
    t.true(first.generationSeconds >= 0);
    t.is(first.payloadBytes, encodeBatch(dataset, 0, 1000, 'json').length + encodeBatch(dataset, 1000, 2000, 'json').length + encodeBatch(dataset, 2000, 2500, 'json').length);

    const second = await loadDataset(new SkeinHttpClient(standIn.baseUrl), dataset, streamOptions);
    t.true(second.payloadCache?.reused);
    t.is(second.generationSeconds, 0);
    t.is(second.payloadBytes, first.payloadBytes);
    t.is(standIn.documentCount, 5000);
    t.is(readdirSync(cacheDirectory).length, 2); // the payloads and their index
  } finally {
    await standIn.close();
    rmSync(cacheDirectory, { recursive: true, force: true });
  }
});
