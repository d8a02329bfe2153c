// GET /metrics (Meilisearch's experimental metrics route): off unless `enableMetrics` or the `metrics`
// experimental feature; Prometheus text with Meilisearch's metric names and labels, then Skein's own;
// key action metrics.get on every index.
import test from 'ava';
import { register as promClientGlobalRegistry } from 'prom-client';
import { errorBody, withTestServer, type Client } from './harness.js';

const MASTER = 'metrics-master-key-0123456789';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Scrape {
  samples: Sample[];
  types: Map<string, string>;
}

/** Prometheus text format 0.0.4: `# HELP`/`# TYPE` lines, then `name{label="value",...} number`. Throws on any other line. */
function parsePrometheus(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(meta[3]!)) throw new Error(`bad TYPE line: ${line}`);
        types.set(meta[2]!, meta[3]!);
      }
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|[+-]Inf)$/.exec(line);
    if (!sample) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    const labelText = sample[2] ?? '';
    const labelPattern = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;
    let at = 0;
    while (at < labelText.length) {
      labelPattern.lastIndex = at;
      const label = labelPattern.exec(labelText);
      if (!label) throw new Error(`bad labels in ${JSON.stringify(line)}`);
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
      at = labelPattern.lastIndex;
    }
    samples.push({ name: sample[1]!, labels, value: Number(sample[3]) });
  }
  return { samples, types };
}

function value(scrape: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = scrape.samples.find((sample) => sample.name === name
    && Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted));
  return found?.value;
}

async function scrape(client: Client): Promise<Scrape> {
  const response = await client.get('/metrics');
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}: ${response.text}`);
  return parsePrometheus(response.text);
}

const NOT_ENABLED = errorBody(
  'Getting metrics requires enabling the `metrics` experimental feature. See https://github.com/meilisearch/product/discussions/625',
  'feature_not_enabled');

test('/metrics is off by default: feature_not_enabled (400), after authentication', (t) =>
  withTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    const off = await client.get('/metrics');
    t.is(off.status, 400);
    t.deepEqual(off.body, NOT_ENABLED);
    // The key is checked first: no key is missing_authorization_header, not the feature error.
    const anonymous = await new (client.constructor as typeof Client)(client.baseUrl).get('/metrics');
    t.is(anonymous.status, 401);
    t.is(anonymous.body.code, 'missing_authorization_header');
    const features = await client.get('/experimental-features');
    t.is(features.body.metrics, false);
  }));

test('PATCH /experimental-features {metrics: true} turns /metrics on, false turns it off again', (t) =>
  withTestServer({ masterKey: MASTER, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    t.is((await client.get('/metrics')).status, 400);
    t.is((await client.patch('/experimental-features', { metrics: true })).status, 200);
    const on = await client.get('/metrics');
    t.is(on.status, 200);
    t.is(on.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    parsePrometheus(on.text);
    t.is((await client.patch('/experimental-features', { metrics: false })).status, 200);
    const off = await client.get('/metrics');
    t.is(off.status, 400);
    t.deepEqual(off.body, NOT_ENABLED);
  }));

test('enableMetrics: the scrape parses, requests are counted by route pattern, docs and tasks are counted', (t) =>
  withTestServer({ masterKey: MASTER, enableMetrics: true, workers: 2, shardsPerIndex: 3 }, async ({ client }) => {
    t.is((await client.get('/experimental-features')).body.metrics, true, 'the start option shows as the feature');
    const first = await scrape(client);
    t.is(first.types.get('meilisearch_http_requests_total'), 'counter');
    t.is(first.types.get('meilisearch_http_response_time_seconds'), 'histogram');
    for (const gauge of ['meilisearch_db_size_bytes', 'meilisearch_used_db_size_bytes', 'meilisearch_index_count', 'meilisearch_is_indexing']) {
      t.is(first.types.get(gauge), 'gauge', gauge);
    }
    t.is(value(first, 'meilisearch_index_count'), 0);
    t.true(value(first, 'meilisearch_db_size_bytes')! > 0);

    await client.addDocuments('movies', [{ id: 1, title: 'Carol' }, { id: 2, title: 'Wonder Woman' }, { id: 3, title: 'Life of Pi' }]);
    for (let i = 0; i < 3; i++) t.is((await client.post('/indexes/movies/search', { q: 'carol' })).status, 200);
    t.is((await client.post('/indexes/missing-index/search', { q: 'x' })).status, 404);
    t.is((await client.get('/no/such/route/at/all')).status, 404);

    const after = await scrape(client);
    const search = { method: 'POST', path: '/indexes/{index_uid}/search' };
    t.is(value(after, 'meilisearch_http_requests_total', { ...search, status: '200' }), 3);
    t.is(value(after, 'meilisearch_http_requests_total', { ...search, status: '404' }), 1);
    t.is(value(after, 'meilisearch_http_response_time_seconds_count', search), 4);
    t.is(value(after, 'meilisearch_http_response_time_seconds_bucket', { ...search, le: '+Inf' }), 4);
    // Raw paths never become labels (an unbounded label set).
    t.false(after.samples.some((sample) => sample.labels.path?.includes('movies') || sample.labels.path?.includes('no/such')));
    t.is(value(after, 'meilisearch_http_requests_total', { method: 'GET', path: 'unmatched', status: '404' }), 1);
    t.is(value(after, 'meilisearch_http_requests_total', { method: 'GET', path: '/metrics', status: '200' }), 1);

    t.is(value(after, 'meilisearch_index_count'), 1);
    t.is(value(after, 'meilisearch_index_docs_count', { index: 'movies' }), 3);
    t.is(value(after, 'meilisearch_nb_tasks', { kind: 'statuses', value: 'succeeded' }), 1);
    t.is(value(after, 'meilisearch_nb_tasks', { kind: 'statuses', value: 'enqueued' }), 0);
    t.is(value(after, 'meilisearch_nb_tasks', { kind: 'types', value: 'documentAdditionOrUpdate' }), 1);
    t.is(value(after, 'meilisearch_nb_tasks', { kind: 'indexes', value: 'movies' }), 1);
    t.true(value(after, 'meilisearch_last_update')! > 1_600_000_000);
    t.is(value(after, 'meilisearch_is_indexing'), 0);

    // Skein's own: the searches went out in batches to the workers owning the shards.
    const batches = after.samples.filter((sample) => sample.name === 'skein_shard_worker_batch_seconds_count');
    t.is(batches.length, 2, 'one series per worker');
    t.true(batches.reduce((sum, sample) => sum + sample.value, 0) >= 3);
    t.true(value(after, 'skein_query_batch_size_count')! >= 3);
    t.is(value(after, 'skein_searches_refused_total'), 0);
    t.true(value(after, 'skein_stored_document_cache_misses_total')! >= 1);
    t.is(value(after, 'skein_shard_worker_queued_searches', { worker: '0' }), 0);

    await client.addDocuments('movies', [{ id: 4, title: 'Heat' }]);
    const later = await scrape(client);
    t.is(value(later, 'meilisearch_index_docs_count', { index: 'movies' }), 4);
    t.is(value(later, 'meilisearch_nb_tasks', { kind: 'statuses', value: 'succeeded' }), 2);
    t.is(value(later, 'meilisearch_http_requests_total', { method: 'GET', path: '/metrics', status: '200' }), 2);
    // The server's registry is its own: nothing went to prom-client's process-wide one.
    t.is(promClientGlobalRegistry.getMetricsAsArray().length, 0);
  }));

test('a key without metrics.get gets invalid_api_key (403); a key with it on every index reads the metrics; a key restricted to an index cannot', (t) =>
  withTestServer({ masterKey: MASTER, enableMetrics: true, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    const createKey = async (actions: string[], indexes: string[]) => {
      const response = await client.post('/keys', { actions, indexes, expiresAt: null });
      if (response.status !== 201) throw new Error(`POST /keys answered ${response.status}: ${response.text}`);
      return response.body.key as string;
    };
    const searchOnly = client.withKey(await createKey(['search', 'stats.get'], ['*']));
    const denied = await searchOnly.get('/metrics');
    t.is(denied.status, 403);
    t.deepEqual(denied.body, errorBody('The provided API key is invalid.', 'invalid_api_key', 'auth'));

    const metricsKey = client.withKey(await createKey(['metrics.get'], ['*']));
    const allowed = await metricsKey.get('/metrics');
    t.is(allowed.status, 200);
    parsePrometheus(allowed.text);

    const wildcard = client.withKey(await createKey(['metrics.*'], ['*']));
    t.is((await wildcard.get('/metrics')).status, 200);

    // A key on some indexes only: Meilisearch refuses restricted keys with global actions at creation
    // (index_scoped_api_key_with_global_action); one holding every action still may not read /metrics.
    const restricted = client.withKey(await createKey(['*'], ['movies']));
    const refused = await restricted.get('/metrics');
    t.is(refused.status, 403);
    t.is(refused.body.code, 'invalid_api_key');

    t.is((await client.withKey('not-a-key').get('/metrics')).status, 403);
  }));

test('hostile paths do not grow the label set: one unmatched series per method and status (uWS closes unknown methods itself)', (t) =>
  withTestServer({ enableMetrics: true, workers: 1, shardsPerIndex: 1 }, async ({ client }) => {
    const seriesCount = async () => (await scrape(client)).samples.filter((sample) => sample.name === 'meilisearch_http_requests_total').length;
    await client.get('/warm/up');
    await scrape(client); // a scrape counts itself after it answered: the second sees GET /metrics
    const before = await seriesCount();
    for (let i = 0; i < 200; i++) {
      t.is((await client.get(`/random-${i}/${'x'.repeat(i)}`)).status, 404);
      t.is((await client.request('HEAD', `/indexes/i${i}`)).status, 405);
    }
    const after = await scrape(client);
    // New series: HEAD unmatched 405 (GET /metrics 200 was there from the first scrape).
    t.is(after.samples.filter((sample) => sample.name === 'meilisearch_http_requests_total').length, before + 1);
    t.is(value(after, 'meilisearch_http_requests_total', { method: 'GET', path: 'unmatched', status: '404' }), 201);
    t.is(value(after, 'meilisearch_http_requests_total', { method: 'HEAD', path: 'unmatched', status: '405' }), 200);
    t.false(after.samples.some((sample) => /random|\/indexes\/i\d/.test(sample.labels.path ?? '')));
  }));

test('a shard worker killed and replaced shows in skein_thread_restarts_total', (t) =>
  withTestServer({ enableMetrics: true, workers: 2, shardsPerIndex: 2, testHooks: {} }, async ({ client, testHooks }) => {
    t.is(value(await scrape(client), 'skein_thread_restarts_total', { thread: 'shard 1' }), undefined);
    await testHooks!.terminateShardWorker(1);
    const deadline = Date.now() + 30_000;
    let restarts: number | undefined;
    while (Date.now() < deadline) {
      restarts = value(await scrape(client), 'skein_thread_restarts_total', { thread: 'shard 1' });
      if (restarts !== undefined && (await client.get('/health')).status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.is(restarts, 1);
    t.is(value(await scrape(client), 'skein_thread_restarts_total', { thread: 'shard 0' }), undefined);
  }));
