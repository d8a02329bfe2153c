// Test harness for the HTTP integration suite: a REAL Skein server per test file (fresh temp db dir),
// a small fetch-based client, task polling, and helpers to run the server as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type ServerTestHooks, type SkeinOptions, type TestHooksOptions } from '../../src/index.js';

/** Repository root, from dist/test/http/harness.js. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const CLI_PATH = join(REPO_ROOT, 'dist/src/cli.js');
export const CHILD_SERVER_PATH = join(REPO_ROOT, 'dist/test/http/fixtures/server-child.js');

/**
 * Servers of the suite skip the shard workers' write-path warm-up (~1 s of a core per worker at start,
 * src/shard/warm-up.ts): hundreds of servers start here. test/http/warm-up.test.ts turns it back on.
 */
process.env.SKEIN_WRITE_WARM_UP ??= '0';

export const FINISHED = new Set(['succeeded', 'failed', 'canceled']);

export interface StartOptions {
  dbPath?: string;
  workers?: number;
  shardsPerIndex?: number;
  httpPayloadSizeLimit?: number;
  failurePoints?: string[];
  masterKey?: string;
  maxQueuedSearches?: number;
  /** 'production' turns the preview page off (and needs a master key of 16 bytes or more). */
  env?: 'development' | 'production';
  enableMetrics?: boolean;
  /** The task queue's bounds (SkeinOptions). */
  maxNumberOfTasks?: number;
  maxTaskDbSize?: number;
  /** Dumps (src/dump): where POST /dumps writes, and a dump to import at start. */
  dumpDir?: string;
  importDump?: string;
  ignoreDumpIfDbExists?: boolean;
  ignoreMissingDump?: boolean;
  /** startServer's test hooks (thread failures, thread events); the server's hooks are then TestServer.testHooks. */
  testHooks?: TestHooksOptions;
  /** Any other startServer option (snapshot folder, imports...), passed as is. */
  more?: SkeinOptions;
  /** Default 'warn' here (request lines would flood the test output); logs.test.ts sets them. */
  logLevel?: SkeinOptions['logLevel'];
  logsMode?: SkeinOptions['logsMode'];
  logDestination?: SkeinOptions['logDestination'];
}

export interface HttpResponse {
  status: number;
  /** Parsed JSON when the body is JSON, else the raw text (or null when empty). */
  body: any;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  /** JSON-serialized unless `raw` is given. */
  body?: unknown;
  /** Sent as is (string or bytes). */
  raw?: string | Uint8Array;
  /** Content-Type header; default application/json when there is a body; null = no header at all. */
  contentType?: string | null;
  headers?: Record<string, string>;
}

export function makeTempDir(prefix = 'skein-http-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** An HTTP client bound to one base URL. */
export class Client {
  /** `defaultHeaders` go with every request (e.g. Authorization); per-request headers win. */
  constructor(readonly baseUrl: string, readonly defaultHeaders: Record<string, string> = {}) {}

  /** The same server, authenticated with `Authorization: Bearer <key>`. */
  withKey(key: string): Client {
    return new Client(this.baseUrl, { ...this.defaultHeaders, authorization: `Bearer ${key}` });
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...this.defaultHeaders, ...options.headers };
    let payload: Uint8Array | undefined;
    if (options.raw !== undefined) {
      payload = typeof options.raw === 'string' ? Buffer.from(options.raw) : options.raw;
    } else if (options.body !== undefined) {
      payload = Buffer.from(JSON.stringify(options.body));
    }
    if (payload !== undefined && options.contentType !== null) {
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (payload === undefined && options.contentType) {
      headers['content-type'] = options.contentType;
    }
    // Bytes (not strings) so that fetch never invents a Content-Type of its own.
    const response = await fetch(this.baseUrl + path, { method, headers, body: payload as unknown as BodyInit | undefined });
    const text = await response.text();
    let body: any = text === '' ? null : text;
    if (text !== '' && (response.headers.get('content-type') ?? '').includes('json')) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    return { status: response.status, body, text, headers: response.headers };
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('POST', path, { body, ...options });
  }
  put(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('PUT', path, { body, ...options });
  }
  patch(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('PATCH', path, { body, ...options });
  }
  delete(path: string, options?: RequestOptions) {
    return this.request('DELETE', path, options);
  }

  /** Polls GET /tasks/{uid} until the task is finished. */
  async waitForTask(uid: number, timeoutMs = 20_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = await this.get(`/tasks/${uid}`);
      if (response.status === 200 && FINISHED.has(response.body.status)) return response.body;
      if (response.status !== 200 && response.status !== 404) {
        throw new Error(`GET /tasks/${uid} answered ${response.status}: ${response.text}`);
      }
      if (Date.now() > deadline) throw new Error(`task ${uid} not finished after ${timeoutMs} ms: ${response.text}`);
      await sleep(15);
    }
  }

  /** Sends a request that must be accepted as an asynchronous task (202) and returns its uid. */
  async enqueue(method: string, path: string, options: RequestOptions = {}): Promise<number> {
    const response = await this.request(method, path, options);
    if (response.status !== 202 && response.status !== 200) {
      throw new Error(`${method} ${path} answered ${response.status}: ${response.text}`);
    }
    if (typeof response.body?.taskUid !== 'number') throw new Error(`${method} ${path}: no taskUid in ${response.text}`);
    return response.body.taskUid;
  }

  /** Enqueues, waits, and throws unless the task succeeded. */
  async run(method: string, path: string, options: RequestOptions = {}): Promise<any> {
    const task = await this.waitForTask(await this.enqueue(method, path, options));
    if (task.status !== 'succeeded') throw new Error(`${method} ${path}: task ${task.uid} ${task.status}: ${JSON.stringify(task.error)}`);
    return task;
  }

  addDocuments(indexUid: string, documents: unknown, query = ''): Promise<any> {
    return this.run('POST', `/indexes/${indexUid}/documents${query}`, { body: documents });
  }

  createIndex(uid: string, primaryKey?: string): Promise<any> {
    return this.run('POST', '/indexes', { body: primaryKey === undefined ? { uid } : { uid, primaryKey } });
  }
}

export interface TestServer {
  client: Client;
  dbPath: string;
  port: number;
  /** Only when started with StartOptions.testHooks. */
  testHooks?: ServerTestHooks;
  close(): Promise<void>;
}

/** Starts a server in this process on a fresh (or the given) db dir, on 127.0.0.1 with a free port. */
export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const ownsDir = options.dbPath === undefined;
  const dbPath = options.dbPath ?? makeTempDir();
  const server = await startServer({
    dbPath,
    httpAddr: '127.0.0.1:0',
    workers: options.workers ?? 2,
    shardsPerIndex: options.shardsPerIndex ?? 3,
    // POST /snapshots (the auth matrix walks it) writes here, not in the working directory's snapshots/.
    snapshotDir: join(dbPath, 'snapshot-archives'),
    // Test servers are each other's /network remotes on loopback (Meilisearch's own test server allows any address).
    experimentalAllowedIpNetworks: ['127.0.0.0/8'],
    ...(options.httpPayloadSizeLimit === undefined ? {} : { httpPayloadSizeLimit: options.httpPayloadSizeLimit }),
    ...(options.failurePoints === undefined ? {} : { failurePoints: options.failurePoints }),
    ...(options.masterKey === undefined ? {} : { masterKey: options.masterKey }),
    ...(options.maxQueuedSearches === undefined ? {} : { maxQueuedSearches: options.maxQueuedSearches }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.testHooks === undefined ? {} : { testHooks: options.testHooks }),
    ...(options.enableMetrics === undefined ? {} : { enableMetrics: options.enableMetrics }),
    ...(options.maxNumberOfTasks === undefined ? {} : { maxNumberOfTasks: options.maxNumberOfTasks }),
    ...(options.maxTaskDbSize === undefined ? {} : { maxTaskDbSize: options.maxTaskDbSize }),
    ...options.more,
    ...(options.dumpDir === undefined ? {} : { dumpDir: options.dumpDir }),
    ...(options.importDump === undefined ? {} : { importDump: options.importDump }),
    ...(options.ignoreDumpIfDbExists === undefined ? {} : { ignoreDumpIfDbExists: options.ignoreDumpIfDbExists }),
    ...(options.ignoreMissingDump === undefined ? {} : { ignoreMissingDump: options.ignoreMissingDump }),
    logLevel: options.logLevel ?? 'warn',
    ...(options.logsMode === undefined ? {} : { logsMode: options.logsMode }),
    ...(options.logDestination === undefined ? {} : { logDestination: options.logDestination }),
  });
  return {
    client: new Client(`http://127.0.0.1:${server.port}`, options.masterKey === undefined ? {} : { authorization: `Bearer ${options.masterKey}` }),
    dbPath,
    port: server.port,
    ...(server.testHooks ? { testHooks: server.testHooks } : {}),
    async close() {
      await server.close();
      if (ownsDir) rmSync(dbPath, { recursive: true, force: true });
    },
  };
}

/** Runs `body` with a fresh db folder (restart tests share one across servers) and removes it afterwards, whatever happens. */
export async function withTempDir<T>(body: (dbPath: string) => Promise<T>): Promise<T> {
  const dbPath = makeTempDir();
  try {
    return await body(dbPath);
  } finally {
    rmSync(dbPath, { recursive: true, force: true });
  }
}

/** Runs `body` against a server started with `options` and closes it afterwards, whatever happens, so a failed assertion never leaves it running. */
export async function withTestServer<T>(options: StartOptions, body: (server: TestServer) => Promise<T>): Promise<T> {
  const server = await startTestServer(options);
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

export interface ChildServer {
  child: ChildProcess;
  client: Client;
  output(): string;
  /** Resolves with the exit code / signal once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `node <script> ...args` and waits until GET /health answers on `port`. */
export async function spawnServerProcess(script: string, args: string[], port: number, timeoutMs = 20_000): Promise<ChildServer> {
  const child = spawn(process.execPath, [script, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const client = new Client(`http://127.0.0.1:${port}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone) throw new Error(`server process exited before answering /health:\n${output}`);
    try {
      const health = await client.get('/health');
      if (health.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server process did not answer /health within ${timeoutMs} ms:\n${output}`);
    }
    await sleep(50);
  }
  return { child, client, output: () => output, exited };
}

/** `node dist/src/cli.js --db-path X --http-addr 127.0.0.1:PORT`. */
export async function spawnCli(dbPath: string, port: number): Promise<ChildServer> {
  return spawnServerProcess(CLI_PATH, ['--db-path', dbPath, '--http-addr', `127.0.0.1:${port}`], port);
}

/** A child running startServer with options the CLI does not expose (failure points). */
export async function spawnChildServer(options: StartOptions & { dbPath: string; port: number }): Promise<ChildServer> {
  return spawnServerProcess(CHILD_SERVER_PATH, [JSON.stringify(options)], options.port);
}

/** Kills a child (if still alive) and waits for it to be gone. */
export async function stopChild(server: ChildServer, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  await server.exited;
}

/** The Meilisearch error body for a code; message given exactly. */
export function errorBody(message: string, code: string, type = 'invalid_request') {
  return { message, code, type, link: `https://docs.meilisearch.com/errors#${code}` };
}

/**
 * The two layouts a merge across workers can differ on: one worker holding the whole index in one shard,
 * and shards spread over two workers. One server each, set up by `setup`, all closed after the file's tests.
 */
export const WORKER_LAYOUTS = [{ workers: 1, shardsPerIndex: 1 }, { workers: 2, shardsPerIndex: 3 }] as const;

export function serversPerLayout(test: { before(run: () => Promise<void>): void; after: { always(run: () => Promise<void>): void } },
  setup: (client: Client) => Promise<void>): TestServer[] {
  const servers: TestServer[] = [];
  test.before(async () => {
    for (const layout of WORKER_LAYOUTS) {
      const server = await startTestServer(layout);
      servers.push(server);
      await setup(server.client);
    }
  });
  test.after.always(async () => {
    for (const server of servers) await server.close();
  });
  return servers;
}
