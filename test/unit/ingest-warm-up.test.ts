// The payload decoder's warm-up (src/front/threads/warm-up.ts warmUpIngest): made-up NDJSON and JSON
// payloads through the real ingest pool, into a temporary folder that is gone afterwards.
import test from 'ava';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IngestClient } from '../../src/front/threads/ingest-client.js';
import { warmUpIngest } from '../../src/front/threads/warm-up.js';

const INGEST_WORKER = fileURLToPath(new URL('../../src/ingest/worker.js', import.meta.url));

/** A real ingest pool of one thread and an empty parent folder for the warm-up's, both gone afterwards. */
async function withIngest(body: (ingest: IngestClient, parent: string) => Promise<void>): Promise<void> {
  const parent = mkdtempSync(join(tmpdir(), 'skein-ingest-warm-up-test-'));
  const ingest = IngestClient.create(INGEST_WORKER, 1);
  try {
    await body(ingest, parent);
  } finally {
    await ingest.close();
    rmSync(parent, { recursive: true, force: true });
  }
}

test('the decoder warm-up decodes every payload and leaves no update file behind', (t) => withIngest(async (ingest, parent) => {
  t.is(await warmUpIngest(ingest, 100 * 1024 * 1024, 3_000, parent), 3);
  t.deepEqual(readdirSync(parent), []);
}));

test('a payload the decoder refuses ends the warm-up without error, and its folder is still removed', (t) => withIngest(async (ingest, parent) => {
  // A size limit under one payload: the decoder answers payload_too_large, which the warm-up swallows.
  t.is(await warmUpIngest(ingest, 1_000, 3_000, parent), 0);
  t.deepEqual(readdirSync(parent), []);
}));

test('the decoder warm-up stops once a real payload comes', (t) => withIngest(async (ingest, parent) => {
  const warmUp = warmUpIngest(ingest, 100 * 1024 * 1024, 8_000, parent);
  // A real payload, sent while the warm-up's first one is in the pool.
  const real = await ingest.decode({ bytes: new TextEncoder().encode('{"id":1}\n').buffer as ArrayBuffer, contentType: 'ndjson', csvDelimiter: null,
    contentEncoding: null, updateFilesDir: parent, sizeLimit: 1 << 20 });
  t.is(real.documentCount, 1);
  t.true(await warmUp < 8, 'the warm-up did not decode all its payloads');
  t.deepEqual(readdirSync(parent), [real.updateFile]);
}));
