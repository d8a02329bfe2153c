// The importer's HTTP client of a Skein (or Meilisearch) server. Retries what may pass (connection
// refused or reset, timeouts, 429, 502/503/504) with exponential backoff; stops at once on what will not
// (401/403 with a message naming the key problem, other 4xx with the server's message). Re-sending a batch
// whose answer was lost is safe: documents are upserts by primary key, so a second copy of the same
// documents leaves the index as one copy would.
import { gzip as gzipCallback } from 'node:zlib';
import { promisify } from 'node:util';
import { ImportFailure } from './import-failure.js';

const gzip = promisify(gzipCallback);

export interface RetryPolicy {
  /** Attempts in all (the first one included). */
  attempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
}

export interface ServerTask {
  uid: number;
  status: string;
  type?: string;
  error?: { message: string; code: string } | null;
  details?: { receivedDocuments?: number; indexedDocuments?: number | null } | null;
}

/** The server refused a batch as too large (413); the caller may split it. */
export class PayloadTooLarge extends Error {}

/** The import was interrupted (SIGINT) while a request was waiting. */
export class Interrupted extends Error {}

interface Answer {
  status: number;
  body: any;
  text: string;
}

export class ServerClient {
  private readonly base: URL;

  constructor(
    url: string,
    private readonly apiKey: string | null,
    private readonly retry: RetryPolicy,
    private readonly onRetry: (message: string) => void,
    private readonly signal: AbortSignal,
  ) {
    this.base = parseServerUrl(url);
  }

  get url(): string {
    return this.base.href;
  }

  /** GET /health: the server answers (retried while it does not). */
  async health(): Promise<void> {
    const answer = await this.send('GET', 'health', null, {}, 'reach the server');
    if (answer.status !== 200) throw this.failure(answer, 'GET /health');
  }

  /** POST /indexes/{uid}/documents; the task uid from the 202. */
  async addDocuments(
    indexUid: string,
    body: Buffer,
    contentType: string,
    query: Record<string, string>,
    compress: boolean,
  ): Promise<number> {
    const headers: Record<string, string> = { 'content-type': contentType };
    let payload = body;
    if (compress) {
      payload = await gzip(body, { level: 4 });
      headers['content-encoding'] = 'gzip';
    }
    const search = new URLSearchParams(query).toString();
    const path = `indexes/${encodeURIComponent(indexUid)}/documents${search ? `?${search}` : ''}`;
    const answer = await this.send('POST', path, payload, headers, 'send documents');
    if (answer.status === 413) throw new PayloadTooLarge(answer.body?.message ?? answer.text);
    if (answer.status !== 202 && answer.status !== 200) {
      throw this.failure(answer, `POST /indexes/${indexUid}/documents`, 'documents.add', indexUid);
    }
    const uid = answer.body?.taskUid;
    if (typeof uid !== 'number') throw new ImportFailure(`the server answered ${answer.status} without a taskUid: ${answer.text.slice(0, 200)}`);
    return uid;
  }

  /** The tasks with these uids (GET /tasks?uids=...); missing ones are absent. */
  async tasks(uids: number[]): Promise<ServerTask[]> {
    const path = `tasks?uids=${uids.join(',')}&limit=${uids.length}`;
    const answer = await this.send('GET', path, null, {}, 'read tasks');
    if (answer.status !== 200) throw this.failure(answer, 'GET /tasks', 'tasks.get');
    return (answer.body?.results ?? []) as ServerTask[];
  }

  private async send(method: string, path: string, body: Buffer | null, headers: Record<string, string>, what: string): Promise<Answer> {
    const url = new URL(path, this.base);
    const allHeaders: Record<string, string> = { ...headers };
    if (this.apiKey !== null) allHeaders.authorization = `Bearer ${this.apiKey}`;
    let delay = this.retry.firstDelayMs;
    for (let attempt = 1; ; attempt++) {
      if (this.signal.aborted) throw new Interrupted();
      let problem: string;
      try {
        const response = await fetch(url, {
          method,
          headers: allHeaders,
          body: body as unknown as BodyInit | null,
          signal: AbortSignal.any([this.signal, AbortSignal.timeout(this.retry.timeoutMs)]),
        });
        const text = await response.text();
        if (!RETRIED_STATUSES.has(response.status)) return { status: response.status, body: parseJson(text), text };
        problem = `${response.status} ${response.statusText}`;
      } catch (cause) {
        if (this.signal.aborted) throw new Interrupted();
        const reason = networkReason(cause);
        if (reason.fatal) throw new ImportFailure(`cannot ${what} at ${this.base.origin}: ${reason.text}`);
        problem = reason.text;
      }
      if (attempt >= this.retry.attempts) {
        throw new ImportFailure(
          `cannot ${what} at ${this.base.origin}: ${problem} (${attempt} attempt${attempt === 1 ? '' : 's'}). ` +
          'Is the server running at this address? (--url)',
        );
      }
      this.onRetry(`${method} ${url.pathname}: ${problem}; retrying in ${formatDelay(delay)} (attempt ${attempt + 1} of ${this.retry.attempts})`);
      await sleep(delay, this.signal);
      delay = Math.min(delay * 2, this.retry.maxDelayMs);
    }
  }

  private failure(answer: Answer, request: string, action?: string, indexUid?: string): ImportFailure {
    const code = typeof answer.body?.code === 'string' ? answer.body.code : null;
    const message = typeof answer.body?.message === 'string' ? answer.body.message : answer.text.slice(0, 300);
    const said = `${answer.status}${code ? ` ${code}` : ''}: ${message}`;
    if (answer.status === 401) {
      return new ImportFailure(
        `the server requires an API key and none was given (${request} answered ${said}). ` +
        'Pass one with --api-key or the SKEIN_API_KEY environment variable',
      );
    }
    if (answer.status === 403) {
      const needs = action === 'tasks.get'
        ? 'the `tasks.get` action (to wait for the tasks; or pass --no-wait)'
        : `the \`${action ?? 'needed'}\` action${indexUid ? ` on index \`${indexUid}\`` : ''}`;
      return new ImportFailure(
        `the API key was refused (${request} answered ${said}). ` +
        `Check that --api-key is a valid key that has not expired and that it has ${needs}`,
      );
    }
    return new ImportFailure(`${request} answered ${said}`);
  }
}

const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

export function parseServerUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`);
  } catch {
    throw new ImportFailure(`--url: \`${url}\` is not a valid URL (expected e.g. http://127.0.0.1:7700)`, 2);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ImportFailure(`--url: \`${url}\` must be an http:// or https:// URL`, 2);
  }
  if (parsed.search || parsed.hash) throw new ImportFailure(`--url: \`${url}\` must not have a query or fragment`, 2);
  if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
  return parsed;
}

function networkReason(cause: unknown): { text: string; fatal: boolean } {
  const error = cause as Error & { cause?: { code?: string; message?: string } };
  if (error.name === 'TimeoutError') return { text: 'no answer before the request timeout (--timeout)', fatal: false };
  const code = error.cause?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { text: `cannot resolve the host name (${code})`, fatal: code === 'ENOTFOUND' };
  if (code === 'ERR_INVALID_URL' || code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE') {
    return { text: `${error.cause?.message ?? code} (${code})`, fatal: true };
  }
  if (code) return { text: `${error.cause?.message ?? code}`.includes(code) ? `${error.cause?.message}` : `${error.cause?.message ?? ''} (${code})`, fatal: false };
  return { text: error.cause?.message ?? error.message, fatal: false };
}

function parseJson(text: string): any {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new Interrupted());
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Interrupted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
