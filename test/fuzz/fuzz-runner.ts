// The fuzz loop (issue 18): loads the corpus into a read index, sends a seeded stream of random
// requests from a few concurrent clients, and checks every answer: no 5xx, every 4xx a Meilisearch
// error body, no request past its timeout; then checks the server still answers a known search as
// before and still accepts a write. Used by test/http/fuzz.test.ts (bounded) and `npm run fuzz`.
import { deriveSeed, SeededRandom } from '../../bench/seeded-random.js';
import { Client } from '../http/harness.js';
import { corpusDocuments, FUZZ_SETTINGS } from './corpus.js';
import { KNOWN_FINDING_CATEGORIES, randomRequest, type FuzzContext, type FuzzRequest, type KnownFindingCategory } from './generators.js';

export const DEFAULT_FUZZ_SEED = 18;
export const READ_INDEX = 'fuzz_read';
export const WRITE_INDEXES = ['fuzz_write', 'fuzz_write_2'];

export interface FuzzOptions {
  seed: number;
  /** Stop sending new requests after this long. */
  durationMs: number;
  /** Stop after this many requests (whichever comes first). */
  maxRequests?: number;
  concurrency?: number;
  requestTimeoutMs?: number;
  enabled?: ReadonlySet<KnownFindingCategory>;
  log?: (line: string) => void;
  /** Called every 10 s with the report so far. */
  progress?: (report: FuzzReport) => void;
}

export interface FuzzFailure {
  index: number;
  problem: string;
  request: string;
  status?: number;
  response?: string;
}

export interface FuzzReport {
  seed: number;
  requests: number;
  failures: FuzzFailure[];
  byStatus: Record<string, number>;
  byKind: Record<string, number>;
  elapsedMs: number;
}

/** The enabled categories from `SKEIN_FUZZ_CATEGORIES` ("+deepJson,+invalidUtf8" or "all"). */
export function categoriesFromEnv(value: string | undefined): Set<KnownFindingCategory> {
  // Every category is on unless switched off: `none` clears them, `-name` drops one, `+name` adds one.
  const all = Object.keys(KNOWN_FINDING_CATEGORIES) as KnownFindingCategory[];
  const enabled = new Set<KnownFindingCategory>(all);
  if (!value) return enabled;
  for (const raw of value.split(',')) {
    const token = raw.trim();
    if (token === '') continue;
    if (token === 'none') { enabled.clear(); continue; }
    if (token === 'all' || token === '+all') { for (const category of all) enabled.add(category); continue; }
    const name = token.replace(/^[+-]/, '');
    if (!Object.hasOwn(KNOWN_FINDING_CATEGORIES, name)) throw new Error(`unknown fuzz category ${name}; known: ${all.join(', ')}`);
    if (token.startsWith('-')) enabled.delete(name as KnownFindingCategory);
    else enabled.add(name as KnownFindingCategory);
  }
  return enabled;
}

export function describeRequest(request: FuzzRequest, max = 600): string {
  const body = request.body === undefined ? '' : ` ${request.contentType ?? 'application/json'} (${request.body.length} bytes) ${Buffer.from(request.body.subarray(0, max)).toString('utf8')}${request.body.length > max ? '…' : ''}`;
  const path = request.path.length > max ? `${request.path.slice(0, max)}…(${request.path.length} chars)` : request.path;
  const headers = request.headers === undefined ? '' : ` ${JSON.stringify(request.headers)}`;
  return `${request.method} ${path}${headers}${body}`;
}

interface RawResponse {
  status: number;
  text: string;
  contentType: string;
}

async function send(baseUrl: string, request: FuzzRequest, timeoutMs: number): Promise<RawResponse> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) headers['content-type'] = request.contentType ?? 'application/json';
  const response = await fetch(baseUrl + request.path, {
    method: request.method,
    headers,
    body: request.body as unknown as BodyInit | undefined,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  return { status: response.status, text, contentType: response.headers.get('content-type') ?? '' };
}

/** What is wrong with an answer, or null. */
export function checkResponse(response: RawResponse, expect?: FuzzRequest['expect'], boundedErrors = false): string | null {
  if (response.status >= 500) return `status ${response.status}`;
  // hugeEcho: an error message quotes the offending value; Meilisearch's stay small whatever the input.
  if (boundedErrors && response.status >= 400 && response.text.length > 64 * 1024) return `a ${response.status} body of ${response.text.length} characters echoes the input`;
  if (expect?.rejected !== undefined && response.status < 400) return `${expect.rejected} (${response.status})`;
  if (expect?.resultCount !== undefined) {
    let count: unknown;
    try {
      count = JSON.parse(response.text).results?.length;
    } catch {
      count = undefined;
    }
    if (response.status !== 200 || count !== expect.resultCount) return `${expect.resultCount} results expected, got ${response.status} with ${String(count)}`;
  }
  if (response.status >= 400) {
    // An unknown path answers an empty 404, a known path with another method an empty 405 (actix, so Meilisearch).
    if ((response.status === 404 || response.status === 405) && response.text === '') return null;
    let body: any;
    try {
      body = JSON.parse(response.text);
    } catch {
      return `a ${response.status} whose body is not JSON`;
    }
    for (const field of ['message', 'code', 'type', 'link']) {
      if (typeof body?.[field] !== 'string') return `a ${response.status} without a string "${field}"`;
    }
    if (body.link !== `https://docs.meilisearch.com/errors#${body.code}`) return `a ${response.status} whose link does not name its code`;
    return null;
  }
  if (response.contentType.includes('json') && response.text !== '') {
    try {
      JSON.parse(response.text);
    } catch (cause) {
      // The parser's position, and the text around it: the response itself is cut when printed.
      const at = Number(/position (\d+)/.exec((cause as Error).message)?.[1] ?? -1);
      const around = at < 0 ? '' : `: ${JSON.stringify(response.text.slice(Math.max(0, at - 200), at + 100))}`;
      return `a ${response.status} whose JSON does not parse (${(cause as Error).message})${around}`;
    }
  }
  return null;
}

/** Known searches on the read index whose answers must not change while the fuzzer runs. */
export const PROBES: Array<Record<string, unknown>> = [
  { q: 'plugin', limit: 5, attributesToRetrieve: ['id', 'name'] },
  { q: '', filter: 'downloads > 100000 AND category = web', sort: ['downloads:desc'], limit: 5, attributesToRetrieve: ['id'] },
  { q: 'react', facets: ['category', 'scoped'], limit: 3, attributesToRetrieve: ['id'] },
  { filter: '_geoRadius(0, 0, 2000000)', limit: 10, attributesToRetrieve: ['id'] },
];

export async function probeAnswers(client: Client): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const probe of PROBES) {
    const response = await client.post(`/indexes/${READ_INDEX}/search`, probe);
    if (response.status !== 200) throw new Error(`probe ${JSON.stringify(probe)} answered ${response.status}: ${response.text.slice(0, 500)}`);
    const { processingTimeMs: _ignored, ...rest } = response.body;
    answers.push(rest);
  }
  return answers;
}

export interface PreparedIndex {
  context: FuzzContext;
  probes: unknown[];
}

/** Creates the read index (corpus + settings) and the first write index; returns the fuzz context and the probes' answers. */
export async function prepareFuzzIndexes(client: Client, enabled: ReadonlySet<KnownFindingCategory>): Promise<PreparedIndex> {
  const documents = corpusDocuments();
  await client.createIndex(READ_INDEX, 'id');
  await client.run('PATCH', `/indexes/${READ_INDEX}/settings`, { body: FUZZ_SETTINGS });
  await client.addDocuments(READ_INDEX, documents);
  await client.addDocuments(WRITE_INDEXES[0], documents.slice(0, 200));
  await client.run('PATCH', `/indexes/${WRITE_INDEXES[0]}/settings`, { body: FUZZ_SETTINGS });
  const words = [...new Set(documents.flatMap((document) => String(document.summary).toLowerCase().split(/[^a-z0-9]+/)).filter((word) => word.length >= 3))].sort();
  return {
    context: { readIndex: READ_INDEX, writeIndexes: WRITE_INDEXES, words, enabled },
    probes: await probeAnswers(client),
  };
}

/** Runs the request stream; request i is drawn from its own generator seeded by (seed, i), so one request replays alone. */
export async function runFuzz(baseUrl: string, context: FuzzContext, options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const stopAt = started + options.durationMs;
  const timeoutMs = options.requestTimeoutMs ?? 15_000;
  const report: FuzzReport = { seed: options.seed, requests: 0, failures: [], byStatus: {}, byKind: {}, elapsedMs: 0 };
  let next = 0;
  const worker = async () => {
    for (;;) {
      if (Date.now() >= stopAt) return;
      if (options.maxRequests !== undefined && next >= options.maxRequests) return;
      const index = next++;
      let request: FuzzRequest;
      try {
        request = requestAt(options.seed, index, context);
      } catch (cause) {
        // A bug of the generator, not of the server: reported, and the stream goes on.
        report.failures.push({ index, problem: `the generator threw: ${(cause as Error).stack}`, request: '' });
        continue;
      }
      report.requests++;
      report.byKind[request.kind] = (report.byKind[request.kind] ?? 0) + 1;
      let response: RawResponse;
      try {
        response = await send(baseUrl, request, timeoutMs);
      } catch (cause) {
        const detail = `${(cause as Error).message} ${(cause as any).cause?.message ?? ''}`;
        // Known (bounds / edge): a request head over ~100 KiB (uWS's limit) gets its connection reset
        // instead of an HTTP 431; only hugeEcho / heavyFilters put such values in a URL.
        if (request.path.length > 64 * 1024 && /ECONNRESET|other side closed/.test(detail)) {
          report.byStatus.resetHead = (report.byStatus.resetHead ?? 0) + 1;
          continue;
        }
        const problem = (cause as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `request failed: ${detail}`;
        report.failures.push({ index, problem, request: describeRequest(request) });
        options.log?.(`#${index} ${problem}: ${describeRequest(request, 200)}`);
        report.byStatus.error = (report.byStatus.error ?? 0) + 1;
        continue;
      }
      report.byStatus[response.status] = (report.byStatus[response.status] ?? 0) + 1;
      const problem = checkResponse(response, request.expect, context.enabled.has('hugeEcho'));
      if (problem !== null) {
        report.failures.push({ index, problem, request: describeRequest(request), status: response.status, response: response.text.slice(0, 600) });
        options.log?.(`#${index} ${problem}: ${describeRequest(request, 200)} -> ${response.text.slice(0, 200)}`);
      }
    }
  };
  const ticker = options.progress === undefined ? undefined : setInterval(() => options.progress!({ ...report, elapsedMs: Date.now() - started }), 10_000);
  try {
    await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  } finally {
    if (ticker !== undefined) clearInterval(ticker);
  }
  report.elapsedMs = Date.now() - started;
  return report;
}

export function requestAt(seed: number, index: number, context: FuzzContext): FuzzRequest {
  return randomRequest(new SeededRandom(deriveSeed(seed, index)), context);
}

/**
 * After the stream: the read index answers the probes as before, and a write to a write index
 * succeeds and is searchable. Returns the problems found (empty when healthy).
 */
export async function checkHealthAfter(client: Client, probes: unknown[], taskTimeoutMs = 60_000): Promise<string[]> {
  const problems: string[] = [];
  const health = await client.get('/health');
  if (health.status !== 200) problems.push(`/health answered ${health.status}: ${health.text.slice(0, 300)}`);
  const after = await probeAnswers(client).catch((cause: Error) => cause.message);
  if (typeof after === 'string') problems.push(after);
  else for (let i = 0; i < PROBES.length; i++) {
    if (JSON.stringify(after[i]) !== JSON.stringify(probes[i])) problems.push(`probe ${JSON.stringify(PROBES[i])} changed: before ${JSON.stringify(probes[i]).slice(0, 300)} after ${JSON.stringify(after[i]).slice(0, 300)}`);
  }
  const index = 'fuzz_after';
  try {
    const uid = await client.enqueue('POST', `/indexes/${index}/documents`, { body: [{ id: 'after-fuzz', title: 'zyzzogeton after the fuzz' }] });
    const task = await client.waitForTask(uid, taskTimeoutMs);
    if (task.status !== 'succeeded') problems.push(`the write after the fuzz ended ${task.status}: ${JSON.stringify(task.error)}`);
    const search = await client.post(`/indexes/${index}/search`, { q: 'zyzzogeton' });
    if (search.status !== 200 || search.body.hits?.[0]?.id !== 'after-fuzz') problems.push(`the document written after the fuzz is not found: ${search.status} ${search.text.slice(0, 300)}`);
  } catch (cause) {
    problems.push(`the write after the fuzz failed: ${(cause as Error).message.slice(0, 500)}`);
  }
  return problems;
}

export function summarize(report: FuzzReport): string {
  const statuses = Object.entries(report.byStatus).sort().map(([status, count]) => `${status}:${count}`).join(' ');
  return `seed ${report.seed}: ${report.requests} requests in ${(report.elapsedMs / 1000).toFixed(1)} s, ${report.failures.length} failures (statuses ${statuses})`;
}
