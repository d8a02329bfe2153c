// `skein import` interrupted (SIGKILL, SIGINT) and resumed, and its failures: malformed lines, failed
// tasks, API keys refused, a server that is not there, bad arguments. Real server, importer as a child.
import test from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sleep, startTestServer, type TestServer } from './harness.js';
import { csv, ndjson, packageDocuments, readStateFile, runImporter, startImporter, summaryOf, type RunningImporter } from './importer-harness.js';

const MASTER = 'importer-test-master-key-0123456789';

let server: TestServer;
let dir: string;

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'skein-import-resume-'));
  server = await startTestServer({ workers: 2, shardsPerIndex: 2, masterKey: MASTER });
});

test.after.always(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const url = () => `http://127.0.0.1:${server.port}`;
const auth = ['--url', '', '--api-key', MASTER];
const withUrl = (args: string[]) => args.map((arg) => (arg === '' ? url() : arg));

async function count(index: string): Promise<number> {
  const stats = await server.client.get(`/indexes/${index}/stats`);
  return stats.status === 200 ? stats.body.numberOfDocuments : 0;
}

/** Waits until the state file says at least `documents` are confirmed, then sends `signal`. */
async function interruptAfter(running: RunningImporter, statePath: string, documents: number, signal: NodeJS.Signals): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = readStateFile(statePath);
    if (state !== null && state.confirmed.documents >= documents) {
      running.child.kill(signal);
      return state;
    }
    if (running.child.exitCode !== null) throw new Error(`the import ended before it was interrupted: ${(await running.done).stdout}`);
    if (Date.now() > deadline) throw new Error('the import did not confirm enough documents in time');
    await sleep(10);
  }
}

async function interruptAndResume(
  t: import('ava').ExecutionContext,
  file: string,
  index: string,
  total: number,
  signal: NodeJS.Signals,
  extra: string[] = [],
) {
  const statePath = `${file}.skein-import.json`;
  const args = withUrl([file, '--index', index, ...auth, '--batch-size', '1000', '--max-in-flight', '2', '--json', '-q', ...extra]);
  const running = startImporter(args);
  const atInterrupt = await interruptAfter(running, statePath, 3000, signal);
  const first = await running.done;
  if (signal === 'SIGKILL') t.is(first.signal, 'SIGKILL');
  else {
    t.is(first.code, 130, first.stderr);
    const summary = summaryOf(first);
    t.true(summary.interrupted);
    t.is(summary.statePath, statePath);
  }
  const saved = readStateFile(statePath);
  t.truthy(saved, 'the state file is kept');
  t.true(saved.confirmed.documents >= atInterrupt.confirmed.documents);
  t.true(await count(index) < total, 'interrupted mid-way');

  const resumed = await runImporter([...args, '--resume']);
  t.is(resumed.code, 0, resumed.stderr);
  const summary = summaryOf(resumed);
  t.true(summary.alreadyImported >= saved.confirmed.documents);
  // Nothing skipped, nothing sent twice by the resumed run: it sends exactly the rest of the file.
  t.is(summary.alreadyImported + summary.documentsSent, total);
  t.is(summary.documentsIndexed, summary.documentsSent);
  t.is(await count(index), total);
  t.is(readStateFile(statePath), null, 'a completed import removes its state file');
  return { saved, resumed };
}

test('SIGKILL mid-way, then --resume: exactly the file\'s documents (NDJSON)', async (t) => {
  const file = join(dir, 'kill.ndjson');
  writeFileSync(file, ndjson(packageDocuments(30_000)));
  await interruptAndResume(t, file, 'kill-ndjson', 30_000, 'SIGKILL');
});

test('SIGKILL mid-way, then --resume: a JSON array continues after the last confirmed element', async (t) => {
  const file = join(dir, 'kill.json');
  writeFileSync(file, `[\n${packageDocuments(20_000).map((document) => JSON.stringify(document, null, 1)).join(',\n')}\n]`);
  await interruptAndResume(t, file, 'kill-json', 20_000, 'SIGKILL');
});

test('SIGINT saves the state with the tasks in flight (exit 130); --resume waits for them and finishes a gzip CSV', async (t) => {
  const documents = packageDocuments(20_000);
  const file = join(dir, 'interrupt.csv.gz');
  writeFileSync(file, gzipSync(csv(documents)));
  const { resumed } = await interruptAndResume(t, file, 'sigint-csv', 20_000, 'SIGINT');
  t.regex(resumed.stderr, /resuming at line \d+ \(byte \d+\)/);
  const stored = (await server.client.get('/indexes/sigint-csv/documents/19999')).body;
  t.is(stored.downloads, documents[19_999]!.downloads); // typed by the header kept in the state file
});

test('a malformed line stops the import with its line number after importing what comes before; fixed, --resume finishes; --skip-invalid skips it', async (t) => {
  const documents = packageDocuments(3000);
  const lines = documents.map((document) => JSON.stringify(document));
  lines[1502] = '{"id": 1502, "name": "broken", '; // line 1503
  const file = join(dir, 'malformed.ndjson');
  writeFileSync(file, lines.join('\n') + '\n');
  const args = withUrl([file, '--index', 'malformed', ...auth, '--batch-size', '500', '-q']);
  const stopped = await runImporter(args);
  t.is(stopped.code, 1);
  t.regex(stopped.stdout, /line 1503: invalid JSON: .*--resume.*--skip-invalid/);
  t.is(await count('malformed'), 1502, 'the documents before the bad line are imported');

  const skipped = await runImporter(withUrl([file, '--index', 'malformed-skip', ...auth, '--batch-size', '500', '--skip-invalid', '--no-state', '--json', '-q']));
  t.is(skipped.code, 0, skipped.stderr);
  const summary = summaryOf(skipped);
  t.is(summary.skippedInvalid, 1);
  t.is(summary.invalidSamples[0].line, 1503);
  t.is(await count('malformed-skip'), 2999);

  lines[1502] = JSON.stringify(documents[1502]);
  writeFileSync(file, lines.join('\n') + '\n');
  const resumed = await runImporter([...args, '--resume', '--json']);
  t.is(resumed.code, 0, resumed.stderr);
  t.regex(resumed.stderr, /the file was modified since the interrupted import/);
  t.is(summaryOf(resumed).alreadyImported, 1502);
  t.is(summaryOf(resumed).documentsSent, 1498);
  t.is(await count('malformed'), 3000);
});

test('a failed task is reported with its lines and the server\'s message, the others are imported, and the exit code is 1', async (t) => {
  const documents: unknown[] = packageDocuments(2000);
  documents[1234] = { id: 'not a valid id!', name: 'bad' };
  const file = join(dir, 'bad-id.ndjson');
  writeFileSync(file, ndjson(documents));
  const run = await runImporter(withUrl([file, '--index', 'bad-id', ...auth, '--batch-size', '500', '--json', '-q']));
  t.is(run.code, 1);
  const summary = summaryOf(run);
  t.is(summary.failedTasks.length, 1);
  t.like(summary.failedTasks[0], { firstLine: 1001, lastLine: 1500, code: 'invalid_document_id' });
  t.regex(summary.failedTasks[0].message, /not a valid id!/);
  t.is(await count('bad-id'), 1500);
  t.truthy(summary.statePath, 'the state is kept to retry from the failed batch');

  // A first batch that fails stops the sending: the same error would fail every batch.
  const wrongKey = await runImporter(withUrl([file, '--index', 'no-such-key', ...auth, '--primary-key', 'nope', '--batch-size', '500', '--max-in-flight', '1', '--no-state', '-q']));
  t.is(wrongKey.code, 1);
  t.regex(wrongKey.stdout, /stopped: the first batch's task failed \(missing_document_id/);
  t.regex(wrongKey.stdout, /documents sent: +500 in 1 batch\n/);
});

test('API keys: none, a wrong one, one without tasks.get; each a clear message and exit 1, nothing imported', async (t) => {
  const file = join(dir, 'keys.ndjson');
  writeFileSync(file, ndjson(packageDocuments(50)));
  const base = withUrl([file, '--index', 'keys', '--url', '', '--no-state', '-q']);

  const none = await runImporter(base);
  t.is(none.code, 1);
  t.regex(none.stderr, /the server requires an API key and none was given .*401 missing_authorization_header.*--api-key or the SKEIN_API_KEY/);

  const wrong = await runImporter([...base, '--api-key', 'not-the-key']);
  t.is(wrong.code, 1);
  t.regex(wrong.stderr, /the API key was refused \(POST \/indexes\/keys\/documents answered 403 invalid_api_key: .*valid key that has not expired .*`documents.add` action on index `keys`/);
  t.is(await count('keys'), 0);

  const created = await server.client.post('/keys', { actions: ['documents.add'], indexes: ['keys'], expiresAt: null });
  t.is(created.status, 201, created.text);
  const addOnly = await runImporter([...base, '--api-key', created.body.key]);
  t.is(addOnly.code, 1);
  t.regex(addOnly.stderr, /GET \/tasks answered 403 .*`tasks.get` action .*--no-wait/);
  const noWait = await runImporter([...base, '--api-key', created.body.key, '--no-wait', '--json']);
  t.is(noWait.code, 0, noWait.stderr);
  t.is(summaryOf(noWait).tasksEnqueued.length, 1);

  const fromEnvironment = await runImporter(base, { SKEIN_API_KEY: MASTER });
  t.is(fromEnvironment.code, 0, fromEnvironment.stderr);
  await server.client.waitForTask(summaryOf(noWait).tasksEnqueued[0]);
  t.is(await count('keys'), 50);
});

test('a server that is not there: retries with backoff, then a clear failure naming the address', async (t) => {
  const file = join(dir, 'down.ndjson');
  writeFileSync(file, ndjson(packageDocuments(10)));
  const closed = await startTestServer({ workers: 1, shardsPerIndex: 1 });
  const port = closed.port;
  await closed.close();
  const run = await runImporter([file, '--index', 'down', '--url', `http://127.0.0.1:${port}`, '--retries', '3', '--no-state']);
  t.is(run.code, 1);
  t.regex(run.stderr, /retrying in 250 ms \(attempt 2 of 3\)/);
  t.regex(run.stderr, new RegExp(`cannot reach the server at http://127.0.0.1:${port}: .*ECONNREFUSED.* \\(3 attempts\\)\\. Is the server running`));
  t.true(run.ms < 20_000);

  // Ctrl-C while it retries: a clean stop, not a stack trace.
  const waiting = startImporter([file, '--index', 'down', '--url', `http://127.0.0.1:${port}`, '--retries', '20']);
  let stderr = '';
  waiting.child.stderr!.on('data', (chunk) => { stderr += chunk; });
  const deadline = Date.now() + 15_000;
  while (!stderr.includes('retrying') && Date.now() < deadline) await sleep(20);
  waiting.child.kill('SIGINT');
  const interrupted = await waiting.done;
  t.is(interrupted.code, 130, interrupted.stderr);
  t.regex(interrupted.stderr, /interrupted before sending anything; the state file is unchanged/);
  t.notRegex(interrupted.stderr, /    at /);
});

test('unreadable file, bad URL, bad values: clear errors and non-zero exits', async (t) => {
  const missing = await runImporter(withUrl([join(dir, 'nope.ndjson'), '--index', 'x', ...auth]));
  t.is(missing.code, 1);
  t.regex(missing.stderr, /cannot read .*nope\.ndjson: no such file/);

  const file = join(dir, 'ok.ndjson');
  writeFileSync(file, ndjson(packageDocuments(1)));
  const badUrl = await runImporter([file, '--index', 'x', '--url', 'ftp://127.0.0.1:1']);
  t.is(badUrl.code, 2);
  t.regex(badUrl.stderr, /--url: `ftp:\/\/127.0.0.1:1` must be an http:\/\/ or https:\/\/ URL/);

  const badSize = await runImporter([file, '--index', 'x', '--batch-size', '0']);
  t.not(badSize.code, 0);
  t.regex(badSize.stderr, /--batch-size must be a whole number from 1/);

  const noIndex = await runImporter([file]);
  t.not(noIndex.code, 0);
  t.regex(noIndex.stderr, /required option '-i, --index <uid>'/);

  const notJson = join(dir, 'not-an-array.json');
  writeFileSync(notJson, '"just a string"');
  const wrongShape = await runImporter(withUrl([notJson, '--index', 'x', ...auth, '--no-state']));
  t.is(wrongShape.code, 1);
  t.regex(wrongShape.stdout + wrongShape.stderr, /line 1: expected a JSON array of documents \(`\[`\) or one document \(`\{`\), found `"`/);
});
