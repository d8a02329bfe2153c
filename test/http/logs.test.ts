// Logs (issue 20): lines captured through startServer's logDestination and parsed: request lines, task
// lines, internal errors with their stack, level filtering, the human format, a shard worker thread's
// lines arriving through the server's logger, and Meilisearch's experimental /logs/* routes (gated by
// logsRoute; a stream that a slow reader cannot hold up).
import { connect } from 'node:net';
import test from 'ava';
import { sleep, withTestServer, type TestServer } from './harness.js';

interface Capture {
  lines: string[];
  destination: { write(chunk: string): void };
  records(): any[];
}

function capture(): Capture {
  const lines: string[] = [];
  return {
    lines,
    destination: { write: (chunk: string) => { lines.push(chunk); } },
    records: () => lines.map((line) => JSON.parse(line)),
  };
}

async function waitFor<T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const SMALL = { workers: 1, shardsPerIndex: 1 } as const;

test('JSON mode: one line per request and per finished task, with their fields; every line has level, time and msg', async (t) => {
  const logs = capture();
  await withTestServer({ ...SMALL, logLevel: 'info', logsMode: 'json', logDestination: logs.destination }, async ({ client, port }) => {
    await client.addDocuments('movies', [{ id: 1, title: 'Carol' }, { id: 2, title: 'Heat' }]);
    const failedUid = await client.enqueue('POST', '/indexes/nokey/documents', { body: [{ title: 'no id field' }] });
    const failed = await client.waitForTask(failedUid);
    t.is(failed.status, 'failed');
    const search = await client.post('/indexes/movies/search', { q: 'carol' });
    t.is(search.status, 200);
    t.is((await client.get('/no/such/route')).status, 404);

    const records = () => logs.records();
    const searchLine = await waitFor(() => records().find((r) => r.msg === 'request' && r.route === '/indexes/{indexUid}/search'), 'the search line');
    t.like(searchLine, { level: 'info', target: 'meilisearch::http', method: 'POST', path: '/indexes/movies/search', status: 200 });
    t.is(typeof searchLine.durationMs, 'number');
    t.true(searchLine.durationMs >= 0);
    t.true(Number.isInteger(searchLine.requestId));
    t.false(Number.isNaN(Date.parse(searchLine.time)));
    const notFound = records().find((r) => r.msg === 'request' && r.path === '/no/such/route');
    t.like(notFound, { status: 404, route: null, method: 'GET' });
    // Request ids are distinct.
    const ids = records().filter((r) => r.msg === 'request').map((r) => r.requestId);
    t.is(new Set(ids).size, ids.length);

    const taskLines = await waitFor(() => {
      const lines = records().filter((r) => r.msg === 'task finished');
      return lines.some((r) => r.taskUid === failedUid) ? lines : null;
    }, 'the task lines');
    const succeeded = taskLines.find((r) => r.indexUid === 'movies' && r.type === 'documentAdditionOrUpdate');
    t.like(succeeded, { level: 'info', target: 'index_scheduler::tasks', thread: 'scheduler', status: 'succeeded' });
    t.true(Number.isInteger(succeeded.taskUid));
    t.is(typeof succeeded.durationMs, 'number');
    t.is(succeeded.errorCode, undefined);
    t.like(taskLines.find((r) => r.taskUid === failedUid), { status: 'failed', indexUid: 'nokey', errorCode: failed.error.code });

    t.truthy(records().find((r) => r.target === 'meilisearch' && r.msg === `Skein is listening on http://127.0.0.1:${port}`));
    for (const line of logs.lines) {
      t.true(line.endsWith('\n'));
      const record = JSON.parse(line);
      t.is(typeof record.level, 'string');
      t.is(typeof record.time, 'string');
      t.is(typeof record.msg, 'string');
    }
  });
  t.truthy(logs.records().find((r) => r.msg === 'shutting down'));
  t.truthy(logs.records().find((r) => r.msg === 'stopped'));
});

test('an internal error (500) is logged at error level with its stack and the request id of its request line', async (t) => {
  const logs = capture();
  await withTestServer({ ...SMALL, logLevel: 'info', logsMode: 'json', logDestination: logs.destination, testHooks: {} }, async (server) => {
    await server.client.addDocuments('movies', [{ id: 1, title: 'Carol' }]);
    // The only worker dead and not replaced: its searches answer `internal`.
    const release = server.testHooks!.holdReplacements();
    try {
      await server.testHooks!.terminateShardWorker(0);
      const search = await waitFor(async () => {
        const response = await server.client.post('/indexes/movies/search', { q: 'carol' });
        return response.status === 500 ? response : null;
      }, 'a 500');
      t.is(search.body.code, 'internal');
      const error = await waitFor(() => logs.records().find((r) => r.msg === 'internal error'), 'the error line');
      t.like(error, { level: 'error', target: 'meilisearch::http', method: 'POST', route: '/indexes/{indexUid}/search' });
      t.is(typeof error.err?.message, 'string');
      t.regex(error.err.stack, /\n\s+at /, 'a stack trace');
      const requestLine = logs.records().find((r) => r.msg === 'request' && r.requestId === error.requestId);
      t.like(requestLine, { status: 500 });
    } finally {
      release();
    }
  });
});

test('levels: at warn no request nor task line is written but warnings are; off writes nothing', async (t) => {
  const warn = capture();
  await withTestServer({ ...SMALL, logLevel: 'warn', logsMode: 'json', logDestination: warn.destination }, async ({ client }) => {
    await client.addDocuments('movies', [{ id: 1, title: 'Carol' }]);
    t.is((await client.get('/indexes/movies/search?q=carol')).status, 200);
    await sleep(200);
  });
  const records = warn.records();
  t.true(records.length > 0);
  t.true(records.every((r) => r.level === 'warn' || r.level === 'error'), JSON.stringify(records));
  t.truthy(records.find((r) => /No master key was found/.test(r.msg)));
  t.falsy(records.find((r) => r.msg === 'request' || r.msg === 'task finished'));

  const off = capture();
  await withTestServer({ ...SMALL, logLevel: 'off', logsMode: 'json', logDestination: off.destination }, async ({ client }) => {
    await client.addDocuments('movies', [{ id: 1, title: 'Carol' }]);
    t.is((await client.get('/indexes/movies/search?q=carol')).status, 200);
  });
  t.deepEqual(off.lines, []);
});

test('human mode writes readable one-line text, not JSON', async (t) => {
  const logs = capture();
  await withTestServer({ ...SMALL, logLevel: 'info', logsMode: 'human', logDestination: logs.destination }, async ({ client }) => {
    await client.addDocuments('movies', [{ id: 1, title: 'Carol' }]);
    t.is((await client.get('/indexes/movies/search?q=carol')).status, 200);
    await waitFor(() => logs.lines.find((line) => line.includes('path=/indexes/movies/search')), 'the search line');
  });
  const search = logs.lines.find((line) => line.includes('path=/indexes/movies/search'))!;
  t.regex(search, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\s+INFO meilisearch::http: request .*method=GET route=\/indexes\/\{indexUid\}\/search path=\/indexes\/movies\/search status=200 durationMs=[\d.]+\n$/);
  t.regex(logs.lines.find((line) => line.includes('task finished'))!, /INFO index_scheduler::tasks: task finished thread=scheduler .*type=documentAdditionOrUpdate indexUid=movies status=succeeded/);
  for (const line of logs.lines) {
    t.throws(() => JSON.parse(line), undefined, `not JSON: ${line}`);
    t.is(line.indexOf('\n'), line.length - 1, 'one line each');
  }
});

test('a shard worker thread logs through the server\'s logger: a killed worker\'s death, its replacement and the new thread\'s own load line', async (t) => {
  const logs = capture();
  let replaced = false;
  await withTestServer({
    workers: 2, shardsPerIndex: 2, logLevel: 'debug', logsMode: 'json', logDestination: logs.destination,
    testHooks: { onThreadEvent: (event) => { if (event.thread === 'shard' && event.event === 'replaced') replaced = true; } },
  }, async (server) => {
    await server.client.addDocuments('movies', [{ id: 1, title: 'Carol' }, { id: 2, title: 'Heat' }]);
    const before = logs.lines.length;
    server.testHooks!.armThreadFailure({ thread: 'shard', worker: 1, point: 'beforeQueryBatch' });
    await server.client.post('/indexes/movies/search', { q: 'carol' });
    await waitFor(() => replaced, 'the replacement');
    const after = await waitFor(() => {
      const records = logs.lines.slice(before).map((line) => JSON.parse(line));
      return records.some((r) => r.target === 'milli' && r.thread === 'shard 1' && r.msg === 'shard worker loaded its shards') ? records : null;
    }, 'the new thread\'s line');
    const died = after.findIndex((r) => r.target === 'meilisearch::supervisor' && r.msg.startsWith('shard worker died') && r.worker === 1);
    const replacedLine = after.findIndex((r) => r.target === 'meilisearch::supervisor' && r.msg.startsWith('shard worker replaced') && r.worker === 1);
    const loaded = after.findIndex((r) => r.target === 'milli' && r.thread === 'shard 1' && r.msg === 'shard worker loaded its shards');
    t.true(died >= 0 && replacedLine > died && loaded > died, JSON.stringify(after));
    t.like(after[died], { level: 'warn' });
    t.like(after[loaded], { level: 'info', worker: 1, indexes: 1 });
    // Debug lines of the thread too (the level reaches the threads), per index loaded.
    t.truthy(after.find((r) => r.target === 'milli' && r.thread === 'shard 1' && r.msg === 'index loaded' && r.indexUid === 'movies' && r.level === 'debug'));
  });
});

const FEATURE_OFF = {
  message: 'Modifying logs through the `/logs/*` routes requires enabling the `logs route` experimental feature. See https://github.com/orgs/meilisearch/discussions/721',
  code: 'feature_not_enabled', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#feature_not_enabled',
};

test('/logs/* answer feature_not_enabled without the logsRoute feature; bodies are validated first, as Meilisearch; key action metrics.get', async (t) => {
  const master = 'logs-master-key-0123456789';
  await withTestServer({ ...SMALL, masterKey: master }, async ({ client }) => {
    for (const [method, path] of [['POST', '/logs/stream'], ['DELETE', '/logs/stream'], ['POST', '/logs/stderr']] as const) {
      const response = await client.request(method, path, method === 'POST' ? { body: {} } : {});
      t.is(response.status, 400, `${method} ${path}`);
      t.deepEqual(response.body, FEATURE_OFF);
    }
    const badTarget = await client.post('/logs/stream', { target: true });
    t.is(badTarget.status, 400);
    t.is(badTarget.body.message, 'Invalid value type at `.target`: expected a string, but found a boolean: `true`');
    const empty = await client.post('/logs/stream', { target: '' });
    t.regex(empty.body.message, /^Invalid value at `\.target`: Empty string is not a valid target/);
    const equals = await client.post('/logs/stderr', { target: '==' });
    t.is(equals.body.message, 'Invalid value at `.target`: invalid filter directive: too many \'=\' in filter directive, expected 0 or 1');
    const mode = await client.post('/logs/stream', { mode: 'tamo' });
    t.is(mode.body.message, 'Unknown value `tamo` at `.mode`: expected one of `human`, `json`, `profile`');
    t.is(mode.body.code, 'bad_request');

    t.is((await client.patch('/experimental-features', { logsRoute: true })).status, 200);
    const keys = await client.post('/keys', { actions: ['metrics.get'], indexes: ['*'], expiresAt: null });
    const other = await client.post('/keys', { actions: ['stats.get'], indexes: ['*'], expiresAt: null });
    const anonymous = client.withKey('');
    t.is((await anonymous.request('POST', '/logs/stderr', { body: { target: 'info' }, headers: { authorization: '' } })).status, 401);
    t.is((await client.withKey(other.body.key).post('/logs/stderr', { target: 'info' })).status, 403);
    t.is((await client.withKey(keys.body.key).post('/logs/stderr', { target: 'warn' })).status, 204);
    const profile = await client.post('/logs/stream', { mode: 'profile' });
    t.is(profile.status, 400);
    t.regex(profile.body.message, /`profile` mode .* not supported/);
  });
});

async function readLines(response: Response, until: (line: string) => boolean, timeoutMs = 15_000): Promise<string[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const lines: string[] = [];
  let rest = '';
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), sleep(Math.max(1, deadline - Date.now())).then(() => null)]);
      if (next === null) throw new Error(`no matching line within ${timeoutMs} ms: ${JSON.stringify(lines)}`);
      if (next.done) throw new Error(`stream ended: ${JSON.stringify(lines)}`);
      rest += decoder.decode(next.value, { stream: true });
      const parts = rest.split('\n');
      rest = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (until(line)) return lines;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

async function enableLogsRoute(server: TestServer): Promise<void> {
  const response = await server.client.patch('/experimental-features', { logsRoute: true });
  if (response.status !== 200) throw new Error(response.text);
}

test('/logs/stream streams request lines as JSON; one listener at a time; DELETE ends it and frees the route', async (t) => {
  await withTestServer({ ...SMALL, logLevel: 'off' }, async (server) => {
    await enableLogsRoute(server);
    const url = `${server.client.baseUrl}/logs/stream`;
    const stream = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'json', target: 'meilisearch::http=info' }) });
    t.is(stream.status, 200);
    const busy = await server.client.post('/logs/stream', {});
    t.is(busy.status, 400);
    t.deepEqual(busy.body, { message: 'The `/logs/stream` route is currently in use by someone else.', code: 'bad_request', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#bad_request' });

    t.is((await server.client.get('/indexes/streamed/search?q=x')).status, 404);
    const lines = await readLines(stream, (line) => line.includes('/indexes/streamed/search'));
    const record = JSON.parse(lines.at(-1)!);
    t.like(record, { level: 'info', msg: 'request', method: 'GET', path: '/indexes/streamed/search', status: 404, route: '/indexes/{indexUid}/search' });
    // The target filter applies: the stream saw no task or startup line.
    t.true(lines.every((line) => JSON.parse(line).target === 'meilisearch::http'), JSON.stringify(lines));

    t.is((await server.client.delete('/logs/stream')).status, 204);
    // The response ends (a normal end of the chunked body).
    const reader = stream.body!.getReader();
    const ended = await waitFor(async () => (await reader.read()).done, 'the end of the stream');
    t.true(ended);
    const again = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'human' }) });
    t.is(again.status, 200);
    const human = await readLines(again, (line) => line.includes('log stream opened'));
    t.regex(human.at(-1)!, /INFO meilisearch::http: log stream opened/);
    await again.body?.cancel();
  });
});

test('POST /logs/stderr changes the stderr filter at runtime', async (t) => {
  const logs = capture();
  await withTestServer({ ...SMALL, logLevel: 'info', logsMode: 'json', logDestination: logs.destination }, async (server) => {
    await enableLogsRoute(server);
    t.is((await server.client.post('/logs/stderr', { target: 'info,meilisearch::http=off' })).status, 204);
    const from = logs.lines.length;
    t.is((await server.client.get('/indexes/quiet/search')).status, 404);
    await server.client.addDocuments('quiet', [{ id: 1 }]);
    await waitFor(() => logs.records().slice(from).find((r) => r.msg === 'task finished' && r.indexUid === 'quiet'), 'the task line');
    t.falsy(logs.records().slice(from).find((r) => r.msg === 'request'), 'request lines are off');
    t.is((await server.client.post('/logs/stderr', { target: 'meilisearch::http=info' })).status, 204);
    t.is((await server.client.get('/indexes/loud/search')).status, 404);
    await waitFor(() => logs.records().find((r) => r.msg === 'request' && r.path === '/indexes/loud/search'), 'the request line');
  });
});

test('a /logs/stream reader that does not read is cut; the server answers meanwhile and the route is free again', async (t) => {
  const logs = capture();
  await withTestServer({ ...SMALL, logLevel: 'warn', logsMode: 'json', logDestination: logs.destination }, async (server) => {
    await enableLogsRoute(server);
    // A raw connection that sends the request and never reads the answer.
    const socket = connect(server.port, '127.0.0.1');
    const body = JSON.stringify({ mode: 'json', target: 'info' });
    const head = new Promise<string>((done) => socket.once('data', (chunk) => {
      socket.pause();
      done(chunk.toString());
    }));
    socket.write(`POST /logs/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    t.regex(await head, /^HTTP\/1\.1 200 OK/);
    t.is((await server.client.post('/logs/stream', {})).status, 400, 'the stream is open');
    // Long paths make long request lines (~4 KB each): the socket's buffers fill, then the stream's own.
    const longPath = `/not-a-route/${'x'.repeat(3_900)}`;
    let free = false;
    let sent = 0;
    let slowest = 0;
    const deadline = Date.now() + 60_000;
    try {
      while (!free && Date.now() < deadline) {
        const started = Date.now();
        const statuses = await Promise.all(Array.from({ length: 32 }, () => fetch(server.client.baseUrl + longPath).then((r) => r.status)));
        slowest = Math.max(slowest, Date.now() - started);
        t.true(statuses.every((status) => status === 404));
        sent += statuses.length;
        if (logs.records().some((r) => r.msg.includes('reader is too slow'))) free = true;
      }
      t.true(free, `the stream was not cut after ${sent} requests`);
      t.true(slowest < 5_000, `a burst of 32 requests took ${slowest} ms`);
      // The route is free: a new listener gets it.
      const next = await fetch(`${server.client.baseUrl}/logs/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      t.is(next.status, 200);
      await next.body?.cancel();
      t.log(`cut after ${sent} requests of ~4 KB lines; slowest burst of 32: ${slowest} ms`);
    } finally {
      socket.destroy();
    }
  });
});
