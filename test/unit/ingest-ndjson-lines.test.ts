// NDJSON payloads read line by line from their bytes (ndjson-payload.ts ndjsonDocumentsFromLines), the
// update file written from a reused byte buffer (update-file-writer.ts), and the scheduler's read of it
// line by line (document-operations.ts): held to the whole-text path they replace, on random payloads
// mixing ASCII and non-ASCII lines, blank and padded lines, objects over several lines or several on
// one line, numbers that keep their literal, and every kind of malformed line at a random place.
import test from 'ava';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import decodePayload from '../../src/ingest/worker.js';
import { ndjsonDocumentsForUpdateFile, ndjsonDocumentsFromLines } from '../../src/ingest/ndjson-payload.js';
import { DocumentText } from '../../src/ingest/canonical-elements.js';
import { jsonDepthProblem } from '../../src/ingest/json-depth.js';
import { malformedJsonDocuments } from '../../src/ingest/payload-errors.js';
import { SkeinError } from '../../src/errors/index.js';
import { EXACT_NUMBERS_MARK, writeUpdateFile } from '../../src/ingest/update-file-writer.js';
import { createHarness } from './scheduler-harness.js';
import { planBatch } from '../../src/scheduler/batching/batch-planner.js';

const directory = mkdtempSync(join(tmpdir(), 'skein-ndjson-lines-'));
test.after.always(() => rmSync(directory, { recursive: true, force: true }));

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Lines the fast path takes as they are, and lines that send it to the whole text. */
const GOOD_LINES = [
  (k: number) => `{"id":${k},"name":"plain ascii ${k}"}`,
  (k: number) => `{"id":${k},"name":"café ☕ 東京 ${k}","emoji":"😀"}`,
  (k: number) => `  {"id":${k}, "spaced": true }  `,
  (k: number) => `{"id":${k},"crlf":"x"}\r`,
  (k: number) => ` {"id":${k},"big":12345678901234567890,"float":1.0}`,
  (k: number) => `{"id":${k},"escaped":"a\\"b\\\\c\\n","u":"\\u00e9"}`,
  (k: number) => `{"id":${k},"nested":{"a":[1,{"b":"ü"}]}}`,
  () => '',
  () => '   \t ',
];
const ODD_LINES = [
  (k: number) => `{"id":${k},\n"spans":"two lines"}`,
  (k: number) => `{"id":${k}} {"id":${k + 0.5},"same":"line"}`,
  (k: number) => `\uFEFF{"id":${k}}`,
];
const BAD_LINES = [
  (k: number) => `{"id":${k},"broken":`,
  () => '[1,2,3]',
  () => '"a string"',
  () => `{"deep":${'['.repeat(130)}${']'.repeat(130)}}`,
  (k: number) => `{"id":${k},"bad":tru}`,
  () => '{"id":1}}',
];

function payloadOf(next: () => number, lines: number, bad: boolean): string {
  const out: string[] = [];
  const badAt = bad ? Math.floor(next() * lines) : -1;
  for (let k = 0; k < lines; k++) {
    const r = next();
    if (k === badAt) out.push(BAD_LINES[Math.floor(next() * BAD_LINES.length)]!(k));
    else if (r < 0.08) out.push(ODD_LINES[Math.floor(next() * ODD_LINES.length)]!(k));
    else out.push(GOOD_LINES[Math.floor(next() * GOOD_LINES.length)]!(k));
  }
  return out.join('\n') + (next() < 0.5 ? '\n' : '');
}

/** What the decoder's whole-text path does (worker.ts decodeUtf8 for a valid payload). */
function wholeText(bytes: Buffer): string {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  const tooDeep = jsonDepthProblem(text);
  if (tooDeep !== null) throw malformedJsonDocuments('ndjson', tooDeep);
  return text;
}

function outcome(read: () => Iterable<unknown>): { documents: unknown[] } | { error: string } {
  try {
    return { documents: [...read()].map((document) => document instanceof DocumentText ? { text: document.json, exact: document.exactNumbers } : document) };
  } catch (cause) {
    if (!(cause instanceof SkeinError)) throw cause;
    return { error: `${cause.code}: ${cause.message}` };
  }
}

test('line by line from the bytes: the whole text\'s documents and errors, on random payloads', (t) => {
  const next = random(19);
  let fellBack = 0;
  let failed = 0;
  for (let round = 0; round < 400; round++) {
    const text = payloadOf(next, 1 + Math.floor(next() * 12), next() < 0.3);
    const bytes = Buffer.from(text);
    let wholeReads = 0;
    const expected = outcome(() => ndjsonDocumentsForUpdateFile(wholeText(bytes)));
    const actual = outcome(() => ndjsonDocumentsFromLines(bytes, () => {
      wholeReads++;
      return wholeText(bytes);
    }));
    t.deepEqual(actual, expected, JSON.stringify(text));
    if (wholeReads > 0) fellBack++;
    if ('error' in expected) failed++;
  }
  t.true(fellBack > 50 && fellBack < 350, `some payloads were read whole from a line on (${fellBack})`);
  t.true(failed > 50, `some payloads were refused (${failed})`);
});

test('the update file holds the same bytes as the lines joined, across flushes and for a line larger than the buffer', async (t) => {
  const next = random(7);
  const documents: unknown[] = [];
  let expected = '';
  for (let k = 0; k < 30_000; k++) {
    const r = next();
    if (r < 0.3) {
      const document = { id: k, name: `névé ${k}`, tags: ['a', 'ö'] };
      documents.push(document);
      expected += JSON.stringify(document) + '\n';
    } else if (r < 0.4) {
      const json = `{"id":${k},"n":1.0}`;
      documents.push(new DocumentText(json, true));
      expected += EXACT_NUMBERS_MARK + json + '\n';
    } else {
      const json = `{"id":${k},"summary":"${'x'.repeat(Math.floor(next() * 120))}"}`;
      documents.push(new DocumentText(json));
      expected += json + '\n';
    }
  }
  const huge = { id: 'huge', text: 'ü'.repeat(900_000) };
  documents.splice(12_345, 0, huge);
  expected = expected.split('\n').slice(0, 12_345).join('\n') + '\n' + JSON.stringify(huge) + '\n' + expected.split('\n').slice(12_345).join('\n');
  const written = await writeUpdateFile(directory, documents);
  t.is(written.documentCount, documents.length);
  t.is(readFileSync(join(directory, written.updateFile), 'utf8'), expected);
});

test('a payload through the decoder and the scheduler: the stored documents as sent, ASCII or not', async (t) => {
  const rows = [
    { id: 1, name: 'ascii' },
    { id: 2, name: 'Grüße aus Köln', more: '東京 😀' },
    { id: 3, big: '12345678901234567890' },
  ];
  const body = `${JSON.stringify(rows[0])}\n\n  ${JSON.stringify(rows[1])}\r\n{"id":3,"big":12345678901234567890}\n`;
  const decoded = await decodePayload({
    bytes: new Uint8Array(Buffer.from(body)).buffer as ArrayBuffer, contentType: 'ndjson', csvDelimiter: null, contentEncoding: null,
    updateFilesDir: directory, sizeLimit: 1e8,
  });
  if (!('updateFile' in decoded)) return t.fail(JSON.stringify(decoded));
  t.is(decoded.documentCount, 3);
  t.is(readFileSync(join(directory, decoded.updateFile), 'utf8'),
    `${JSON.stringify(rows[0])}\n${JSON.stringify(rows[1])}\n${EXACT_NUMBERS_MARK}{"id":3,"big":12345678901234567890}\n`);

  const h = await createHarness();
  try {
    const task = h.addDocuments('s', [rows[0], { id: 9 }, rows[1]]);
    const plan = await planBatch({ kind: 'index', indexUid: 's', tasks: [task] }, {
      storage: h.storage, shardsPerIndex: 2, now: '2026-01-01T00:00:00Z', isEnqueued: () => true,
      slicing: { sliceSize: 100, pause: async () => {} },
    });
    t.like(plan.results.get(task.uid), { status: 'succeeded' });
    const stage = plan.index!.stage;
    t.is(stage.document(stage.docIdOf('2')!), JSON.stringify(rows[1]), 'a line that is not ASCII is decoded as UTF-8');
    t.is(stage.document(stage.docIdOf('1')!), JSON.stringify(rows[0]));
    t.is(stage.record!.rawDocumentDbSize, Buffer.byteLength(JSON.stringify(rows[0])) + Buffer.byteLength('{"id":9}') + Buffer.byteLength(JSON.stringify(rows[1])));
  } finally {
    await h.close();
  }
});
