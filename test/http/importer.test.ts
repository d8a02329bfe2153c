// `skein import` against a real server (in this process), the importer run as a child process: 100,000
// NDJSON documents made from real npm package names, JSON arrays (pretty-printed, streamed), CSV with
// typed headers, gzip by magic bytes, request compression, batches the server finds too large.
import test from 'ava';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from './harness.js';
import { csv, ndjson, packageDocuments, runImporter, summaryOf } from './importer-harness.js';

let server: TestServer;
let small: TestServer;
let dir: string;

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'skein-import-'));
  server = await startTestServer({ workers: 2, shardsPerIndex: 2 });
  small = await startTestServer({ workers: 1, shardsPerIndex: 1, httpPayloadSizeLimit: 200 * 1024 });
});

test.after.always(async () => {
  await server?.close();
  await small?.close();
  rmSync(dir, { recursive: true, force: true });
});

const url = () => `http://127.0.0.1:${server.port}`;

/** A document as the server stores it from CSV: untyped cells are strings, empty cells null. */
function fromCsv(document: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(document).map(([key, value]) => [key, key === 'downloads' ? value : value === '' ? null : String(value)]));
}

async function count(target: TestServer, index: string): Promise<number> {
  const stats = await target.client.get(`/indexes/${index}/stats`);
  return stats.body.numberOfDocuments;
}

test('imports 100,000 NDJSON documents made from npm package names; /indexes/{uid}/stats counts them', async (t) => {
  const documents = packageDocuments(100_000);
  const file = join(dir, 'packages.ndjson');
  writeFileSync(file, ndjson(documents));
  const run = await runImporter([file, '--index', 'packages', '--primary-key', 'id', '--url', url(), '--json', '--progress', 'lines', '--progress-interval', '1']);
  t.is(run.code, 0, run.stderr);
  const summary = summaryOf(run);
  t.is(summary.documentsSent, 100_000);
  t.is(summary.documentsIndexed, 100_000);
  t.deepEqual(summary.failedTasks, []);
  t.is(summary.batchesSent, 10);
  t.is(await count(server, 'packages'), 100_000);
  const stored = await server.client.get('/indexes/packages/documents/54321');
  t.deepEqual(stored.body, documents[54321]);
  t.false(existsSync(`${file}.skein-import.json`), 'a complete import leaves no state file');
  t.regex(run.stderr, /skein import: \d+% done, \d+ documents sent/);
  t.log(`100,000 documents in ${run.ms} ms (${summary.documentsPerSecond} documents/s)`);
});

test('a JSON array is streamed element by element: pretty-printed, strings holding brackets, commas and escapes, exact big numbers', async (t) => {
  const documents: unknown[] = packageDocuments(3000).map((document, i) => ({
    ...document,
    tricky: i % 7 === 0 ? `] }, {"fake": [1, 2]} \\" \\\\ "quoted" \u00e9\u{1F600}` : 'plain',
  }));
  const pretty = `\ufeff[\n${documents.map((document) => JSON.stringify(document, null, 2)).join(' ,\n')}\n]\n`;
  const withBig = pretty.replace('"id": 0,', '"id": 0, "big": 123456789012345678901234567890,');
  const file = join(dir, 'packages.json');
  writeFileSync(file, withBig);
  const run = await runImporter([file, '--index', 'json-array', '--url', url(), '--batch-size', '700', '--json', '-q']);
  t.is(run.code, 0, run.stderr);
  t.is(summaryOf(run).batchesSent, 5);
  t.is(await count(server, 'json-array'), 3000);
  t.deepEqual((await server.client.get('/indexes/json-array/documents/700')).body, documents[700]);
  const first = await server.client.get('/indexes/json-array/documents/0');
  t.true(first.text.includes('"big":123456789012345678901234567890'), first.text);

  const single = join(dir, 'one.json');
  writeFileSync(single, JSON.stringify({ id: 'only', title: 'a file holding one object' }));
  const one = await runImporter([single, '--index', 'json-single', '--url', url(), '-q']);
  t.is(one.code, 0, one.stderr);
  t.is(await count(server, 'json-single'), 1);
});

test('CSV goes as text/csv with its header in each batch: the server types `downloads:number`; quoted newlines and a custom delimiter survive batching', async (t) => {
  const documents = packageDocuments(2500).map((document, i) => (i % 10 === 3 ? { ...document, summary: `line one\nline "two"; three` } : document));
  const file = join(dir, 'packages.csv');
  writeFileSync(file, csv(documents, ';'));
  const run = await runImporter([file, '--index', 'csv', '--url', url(), '--csv-delimiter', ';', '--batch-size', '600', '--json', '-q']);
  t.is(run.code, 0, run.stderr);
  t.is(summaryOf(run).batchesSent, 5);
  t.is(await count(server, 'csv'), 2500);
  const stored = (await server.client.get('/indexes/csv/documents/1203')).body;
  t.deepEqual(stored, fromCsv({ ...documents[1203]! }));
  t.is(typeof stored.downloads, 'number');
});

test('gzip is recognised by its magic bytes whatever the name; --compress sends gzip request bodies', async (t) => {
  const documents = packageDocuments(4000);
  const named = join(dir, 'packages.ndjson.gz');
  writeFileSync(named, gzipSync(ndjson(documents)));
  const run = await runImporter([named, '--index', 'gzip-named', '--url', url(), '--batch-size', '1500', '--compress', '--json', '-q']);
  t.is(run.code, 0, run.stderr);
  t.is(summaryOf(run).gzip, true);
  t.is(await count(server, 'gzip-named'), 4000);

  const unnamed = join(dir, 'export.csv');
  writeFileSync(unnamed, gzipSync(csv(documents)));
  const csvRun = await runImporter([unnamed, '--index', 'gzip-csv', '--url', url(), '--json', '-q']);
  t.is(csvRun.code, 0, csvRun.stderr);
  t.is(await count(server, 'gzip-csv'), 4000);
  t.deepEqual((await server.client.get('/indexes/gzip-csv/documents/3999')).body, fromCsv({ ...documents[3999]! }));

  const opaque = join(dir, 'export.bin');
  writeFileSync(opaque, gzipSync(ndjson(documents.slice(0, 10))));
  const unknown = await runImporter([opaque, '--index', 'gzip-bin', '--url', url(), '-q']);
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /cannot tell the format of .*export\.bin.*gzip-compressed.*--format/);
  const told = await runImporter([opaque, '--index', 'gzip-bin', '--format', 'ndjson', '--url', url(), '-q']);
  t.is(told.code, 0, told.stderr);
  t.is(await count(server, 'gzip-bin'), 10);
});

test('a batch over the server\'s payload limit (413) is split in halves and the import completes', async (t) => {
  const documents = packageDocuments(3000);
  const file = join(dir, 'big-batches.ndjson');
  writeFileSync(file, ndjson(documents)); // ~420 KB in one batch, the server takes 200 KiB
  const run = await runImporter([file, '--index', 'split', '--url', `http://127.0.0.1:${small.port}`, '--batch-bytes', '10MiB', '--json', '-q']);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /refused a batch of \d+ bytes as too large; sending batches of at most \d+ bytes/);
  const summary = summaryOf(run);
  t.is(summary.documentsSent, 3000);
  t.true(summary.batchesSent >= 3);
  t.is(await count(small, 'split'), 3000);
});

test('memory stays bounded by the batches in flight, not the file: 200,000 documents (29 MB) with a 24 MB JavaScript heap', async (t) => {
  const file = join(dir, 'memory.ndjson');
  writeFileSync(file, ndjson(packageDocuments(200_000)));
  // --no-wait and a primary key the documents lack: the server takes every batch and fails each task at
  // once, so this measures the importer, not the indexing. A batch kept after its send (a Promise.race
  // with a long-pending promise did that) runs out of heap here.
  const run = await runImporter(
    [file, '--index', 'memory', '--primary-key', 'missing', '--url', url(), '--no-wait', '--no-state', '--json', '-q'],
    {}, ['--max-old-space-size=24'],
  );
  t.is(run.code, 0, run.stderr.slice(-2000));
  t.is(summaryOf(run).documentsSent, 200_000);
});
