// The importer's format readers cut at any chunk boundary: the JSON array splitter and the NDJSON reader
// give the same records, lines and end offsets whatever the chunk sizes, and resume from an end offset.
import test from 'ava';
import { JsonArraySplitter } from '../../src/importer/json-array-reader.js';
import { ndjsonRecords } from '../../src/importer/ndjson-reader.js';
import { ImportFailure } from '../../src/importer/import-failure.js';
import type { SourceItem } from '../../src/importer/records.js';

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function chunked(bytes: Buffer, random: () => number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = 1 + Math.floor(random() * 40);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

function split(bytes: Buffer, chunks: Buffer[], offset = 0, line = 1, max = 1 << 20): SourceItem[] {
  const splitter = new JsonArraySplitter({ offset, line }, max);
  const out: SourceItem[] = [];
  for (const chunk of chunks) out.push(...splitter.push(chunk));
  out.push(...splitter.end());
  return out;
}

const DOCUMENTS = [
  { id: 1, text: 'a ] b } c , d [ e {' },
  { id: 2, text: 'escaped \\" quote and backslash \\\\', nested: { deep: [1, [2, { x: '}' }]] } },
  { id: 3, text: 'é 😀 \n newline' },
  { id: 4, empty: {}, list: [] },
];
const TEXT = `\ufeff [\n${DOCUMENTS.map((document, i) => JSON.stringify(document, null, i % 2 === 0 ? 2 : 0)).join(' ,\n\n')}\n] \n`;

test('the JSON array splitter finds the same elements whatever the chunk boundaries', (t) => {
  const bytes = Buffer.from(TEXT);
  const whole = split(bytes, [bytes]);
  t.deepEqual(whole.map((item) => item.kind === 'record' && JSON.parse(item.bytes.toString())), DOCUMENTS);
  for (let seed = 1; seed <= 200; seed++) {
    const items = split(bytes, chunked(bytes, seeded(seed)));
    t.deepEqual(items.map((item) => [item.kind === 'record' ? item.bytes.toString() : item.reason, item.line, item.end]),
      whole.map((item) => [item.kind === 'record' ? item.bytes.toString() : item.reason, item.line, item.end]));
  }
});

test('the JSON array splitter resumes after any element, at its offset and line', (t) => {
  const bytes = Buffer.from(TEXT);
  const whole = split(bytes, [bytes]);
  for (let i = 0; i < whole.length; i++) {
    const { end } = whole[i]!;
    const rest = split(bytes, [bytes.subarray(end.offset)], end.offset, end.line);
    t.deepEqual(rest, whole.slice(i + 1));
  }
});

test('the JSON array splitter: non-objects and oversized elements are invalid records; broken structure stops with a line', (t) => {
  const items = split(Buffer.from('[1, "s", {"a": 1}, [2], {"big": "' + 'x'.repeat(100) + '"}, {"a": }]'), [Buffer.from('[1, "s", {"a": 1}, [2], {"big": "' + 'x'.repeat(100) + '"}, {"a": }]')], 0, 1, 64);
  t.deepEqual(items.map((item) => item.kind), ['invalid', 'invalid', 'record', 'invalid', 'invalid', 'invalid']);
  t.regex((items[4] as { reason: string }).reason, /larger than the largest record allowed \(64 bytes\)/);
  t.regex((items[5] as { reason: string }).reason, /invalid JSON/);
  const broken = (text: string) => t.throws(() => split(Buffer.from(text), [Buffer.from(text)]), { instanceOf: ImportFailure });
  t.regex(broken('[{"a": 1}\n {"b": 2}]')!.message, /line 2: expected `,` or `\]` after a document, found `\{`/);
  t.regex(broken('[{"a": 1},]')!.message, /expected a document after `,`/);
  t.regex(broken('[{"a": 1}] x')!.message, /nothing after the end of the array/);
  t.regex(broken('[{"a": 1},\n{"b": "unterminated}]')!.message, /line 2: the file ends inside the document/);
  t.regex(broken('')!.message, /the file is empty/);
});

test('the NDJSON reader gives the same records whatever the chunk boundaries; long lines are dropped, not held', async (t) => {
  const text = '{"id":1}\r\n\n  \n{"id":2,"t":"é"}\n{bad\n{"id":3,"long":"' + 'y'.repeat(200) + '"}\n[1]\n{"id":4}';
  const bytes = Buffer.from(text);
  const read = async (chunks: Buffer[]) => {
    const out: unknown[] = [];
    async function* source() { yield* chunks; }
    for await (const item of ndjsonRecords(source(), { offset: 0, line: 1 }, 100)) {
      out.push([item.kind, item.kind === 'record' ? item.bytes.toString() : item.reason.slice(0, 20), item.line, item.end]);
    }
    return out;
  };
  const whole = await read([bytes]);
  t.deepEqual(whole.map((item) => (item as unknown[]).slice(0, 3)), [
    ['record', '{"id":1}', 1],
    ['record', '{"id":2,"t":"é"}', 4],
    ['invalid', 'invalid JSON: Expect', 5],
    ['invalid', 'the line is longer t', 6],
    ['invalid', 'a document must be a', 7],
    ['record', '{"id":4}', 8],
  ]);
  for (let seed = 1; seed <= 100; seed++) t.deepEqual(await read(chunked(bytes, seeded(seed))), whole);
});

test('the input file is read as the records are taken, not ahead of them', async (t) => {
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { openInputFile, readInputFrom } = await import('../../src/importer/input-file.js');
  const dir = mkdtempSync(join(tmpdir(), 'skein-input-'));
  try {
    const path = join(dir, 'big.ndjson');
    writeFileSync(path, Buffer.alloc(16 * 1024 * 1024, 'x'));
    const input = await openInputFile(path, null);
    const reading = readInputFrom(input, 1000);
    const iterator = reading.chunks[Symbol.asyncIterator]();
    const first = await iterator.next();
    t.false(first.done);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A stream left in flowing mode (e.g. by a 'data' listener alone) would have read all 16 MiB by now.
    t.true(reading.rawBytesRead() < 2 * 1024 * 1024, `${reading.rawBytesRead()} bytes read ahead`);
    reading.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
