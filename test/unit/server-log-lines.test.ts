// The front writes request lines itself (server-log.ts ServerLog.request), not through pino: each line
// must be the one pino writes for the same fields, in JSON and in human mode, and lines written to a
// file descriptor are gathered before they are written, yet none is lost at close.
import test from 'ava';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerLog } from '../../src/front/ops/server-log.js';

function captured(mode: 'json' | 'human') {
  const lines: string[] = [];
  const log = new ServerLog({ level: 'info', mode, destination: { write: (text: string) => lines.push(text) } });
  return { log, lines };
}

const FIELDS = { requestId: 7, method: 'GET', route: '/indexes/{indexUid}/search', path: '/indexes/m"o\\vies/search', startedAt: 1 };
/** The time and the duration differ between two writes: both replaced by placeholders. */
const stable = (line: string) => line.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/, 'TIME').replace(/durationMs["=:]+[\d.]+/, 'DURATION');

for (const mode of ['json', 'human'] as const) {
  test(`a request line (${mode}) is the line pino writes for its fields`, (t) => {
    const { log, lines } = captured(mode);
    log.request(FIELDS, 200);
    log.request({ ...FIELDS, route: null }, null);
    const http = log.for('meilisearch::http');
    http.info({ requestId: 7, method: 'GET', route: FIELDS.route, path: FIELDS.path, status: 200, durationMs: 1.5 }, 'request');
    http.info({ requestId: 7, method: 'GET', route: null, path: FIELDS.path, status: null, durationMs: 1.5 }, 'request aborted');
    t.is(lines.length, 4);
    t.is(stable(lines[0]!), stable(lines[2]!));
    t.is(stable(lines[1]!), stable(lines[3]!));
    if (mode === 'json') t.like(JSON.parse(lines[0]!), { level: 'info', target: 'meilisearch::http', requestId: 7, status: 200, msg: 'request', path: FIELDS.path });
  });
}

test('request lines are off below info: nothing written', (t) => {
  const lines: string[] = [];
  const log = new ServerLog({ level: 'warn', mode: 'json', destination: { write: (text: string) => lines.push(text) } });
  log.request(FIELDS, 200);
  t.deepEqual(lines, []);
});

test('lines to a file descriptor are gathered, then all written, in order, by close()', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'skein-log-'));
  try {
    const path = join(directory, 'out.log');
    const log = new ServerLog({ level: 'info', mode: 'json', destination: openSync(path, 'w') });
    for (let k = 1; k <= 500; k++) log.request({ ...FIELDS, requestId: k }, 200);
    await log.close();
    const ids = readFileSync(path, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { requestId: number }).requestId);
    t.deepEqual(ids, Array.from({ length: 500 }, (_, k) => k + 1));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a line that is not a request line is not held back: written with the request lines before it, in order', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'skein-log-'));
  try {
    const path = join(directory, 'out.log');
    const log = new ServerLog({ level: 'info', mode: 'json', destination: openSync(path, 'w') });
    log.request({ ...FIELDS, requestId: 1 }, 200);
    log.for('meilisearch').warn('a warning');
    log.request({ ...FIELDS, requestId: 2 }, 200);
    // The warning goes out without waiting for the request lines' delay (a test reading the server's
    // output for a start-up warning found it missing); poll for it, bounded.
    const started = Date.now();
    while (!readFileSync(path, 'utf8').includes('a warning') && Date.now() - started < 5_000) await new Promise((resolve) => setTimeout(resolve, 1));
    await log.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { requestId?: number; msg: string });
    t.deepEqual(lines.map((line) => line.requestId ?? line.msg), [1, 'a warning', 2]);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
