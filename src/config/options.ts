// Options of one Skein server, with the defaults Meilisearch uses where it has an equivalent.
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';

export type SkeinEnv = 'development' | 'production';
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
export type LogsMode = 'human' | 'json';
const LOG_LEVELS: readonly LogLevel[] = ['off', 'error', 'warn', 'info', 'debug', 'trace'];

export interface SkeinOptions {
  /** Directory of the database (created if missing). Default './data.skein'. */
  dbPath?: string;
  /** host:port to listen on; port 0 picks a free port. Default '127.0.0.1:7700'. */
  httpAddr?: string;
  masterKey?: string | null;
  env?: SkeinEnv;
  /** Shard worker threads. Default defaultWorkerCount(): one core fewer than the machine has. */
  workers?: number;
  /** Shards of a new index. Default = workers. */
  shardsPerIndex?: number;
  /** Largest accepted request body, in bytes (after decompression). Default 100 MB. */
  httpPayloadSizeLimit?: number;
  /** Searches waiting for a shard worker beyond which new ones get 503. Default 1000. */
  maxQueuedSearches?: number;
  /** Folder where `POST /dumps` writes `<dumpUid>.dump` (`--dump-dir`). Default 'dumps/'. */
  dumpDir?: string;
  /** A dump file to import at start (`--import-dump`); null: none. */
  importDump?: string | null;
  /** `--ignore-dump-if-db-exists`: skip the import when the data folder already holds a database. */
  ignoreDumpIfDbExists?: boolean;
  /** `--ignore-missing-dump`: start without importing when the dump file does not exist. */
  ignoreMissingDump?: boolean;
  /** Folder where `POST /snapshots` and scheduled snapshots write (`--snapshot-dir`). Default 'snapshots/'. */
  snapshotDir?: string;
  /** Seconds between scheduled snapshots (`--schedule-snapshot [secs]`, 86400 without a value); null: off. */
  scheduleSnapshot?: number | null;
  /** A snapshot file to start from (`--import-snapshot`); null: none. */
  importSnapshot?: string | null;
  /** `--ignore-snapshot-if-db-exists`. */
  ignoreSnapshotIfDbExists?: boolean;
  /** `--ignore-missing-snapshot`. */
  ignoreMissingSnapshot?: boolean;
  /** `--log-level` / MEILI_LOG_LEVEL. Default 'info'. */
  logLevel?: LogLevel;
  /** `--experimental-logs-mode` / MEILI_EXPERIMENTAL_LOGS_MODE. Default 'human'. */
  logsMode?: LogsMode;
  /**
   * Where log lines go (embedding, tests): a file descriptor, or an object whose write(text) gets each
   * line (one call per line, in the logs mode). Default 2 (stderr, written asynchronously).
   */
  logDestination?: number | { write(chunk: string): unknown };
  /** `--experimental-enable-metrics` / MEILI_EXPERIMENTAL_ENABLE_METRICS: GET /metrics on from the start. Default false. */
  enableMetrics?: boolean;
  /**
   * Tasks in the queue at which the oldest finished ones (up to 100k) are deleted automatically, as
   * Meilisearch does past 1M (not a Meilisearch flag; its value is fixed). Default 1,000,000.
   */
  maxNumberOfTasks?: number;
  /**
   * Bytes: new tasks are refused (no_space_left_on_device) once the task store uses 40% of it, as
   * Meilisearch's `max_task_db_size` (not a flag there either). Default 20 GiB.
   */
  maxTaskDbSize?: number;
  /** Failure points to trigger in the scheduler (tests only). */
  failurePoints?: string[];
  /**
   * Cluster mode (src/cluster, `--cluster-nats-urls`): the NATS servers whose JetStream stream is the
   * task log every node applies in order. Empty (the default): a single node, as without it.
   */
  clusterNatsUrls?: string[];
  /** `--cluster-node-name`: this node's name in the cluster (message ids, /network). Default: the host name and port. */
  clusterNodeName?: string | null;
  /** `--cluster-replicas`: replicas of the task log stream and the payload store (default 3; at most the NATS servers). */
  clusterReplicas?: number;
  /**
   * `--experimental-allowed-ip-networks`: the non-global networks (CIDRs, or `any`) requests to /network
   * remotes may reach; global addresses always. Empty (the default): no loopback, private... address (src/network/ip-policy.ts).
   */
  experimentalAllowedIpNetworks?: string[];
  /** The deadline of one request to a /network remote, its answer included (default 25 s, Meilisearch's). */
  remoteTimeoutMs?: number;
  /**
   * Tests only (never reachable over HTTP): the server handle then has `testHooks` to arm thread
   * failure points (src/protocol/thread-failure-points.ts), and thread deaths and replacements are
   * reported here (src/front/threads/worker-supervisor.ts).
   */
  testHooks?: TestHooksOptions;
}

export interface TestHooksOptions {
  onThreadEvent?: (event: import('../front/threads/worker-supervisor.js').ThreadEvent) => void;
  /** The shard worker threads' resource limits (a heap small enough to exhaust in a test). */
  shardWorkerResourceLimits?: import('node:worker_threads').ResourceLimits;
}

export type ResolvedOptions = Required<Omit<SkeinOptions, 'masterKey' | 'testHooks' | 'logDestination'>> & { masterKey: string | null };

export const DEFAULT_HTTP_ADDR = '127.0.0.1:7700';
export const DEFAULT_PAYLOAD_SIZE_LIMIT = 100_000_000;
export const MASTER_KEY_MIN_BYTES = 16;

/**
 * The front thread keeps a core to itself: at high request rates it is busy with HTTP, fan-out and
 * merging, and a query waits for its slowest shard, so a worker that shares a core with the front
 * holds every query back. On 2 cores, 1 worker answered about 1.4x the queries/s of 2 at 100k and
 * 1M documents, and indexed about 15% slower (`npm run bench -- WORKLOAD --workers N`).
 */
export function defaultWorkerCount(cores: number): number {
  return Math.max(1, cores - 1);
}

/** Fills defaults and rejects impossible values; throws a plain Error (a startup failure, not an HTTP answer). */
export function resolveOptions(options: SkeinOptions = {}): ResolvedOptions {
  const workers = options.workers ?? defaultWorkerCount(availableParallelism());
  const resolved: ResolvedOptions = {
    dbPath: options.dbPath ?? './data.skein',
    httpAddr: options.httpAddr ?? DEFAULT_HTTP_ADDR,
    masterKey: options.masterKey ?? null,
    env: options.env ?? 'development',
    workers,
    shardsPerIndex: options.shardsPerIndex ?? workers,
    httpPayloadSizeLimit: options.httpPayloadSizeLimit ?? DEFAULT_PAYLOAD_SIZE_LIMIT,
    maxQueuedSearches: options.maxQueuedSearches ?? 1000,
    failurePoints: options.failurePoints ?? [],
    dumpDir: options.dumpDir ?? 'dumps/',
    importDump: options.importDump ?? null,
    ignoreDumpIfDbExists: options.ignoreDumpIfDbExists ?? false,
    ignoreMissingDump: options.ignoreMissingDump ?? false,
    snapshotDir: options.snapshotDir ?? 'snapshots/',
    scheduleSnapshot: options.scheduleSnapshot ?? null,
    importSnapshot: options.importSnapshot ?? null,
    ignoreSnapshotIfDbExists: options.ignoreSnapshotIfDbExists ?? false,
    ignoreMissingSnapshot: options.ignoreMissingSnapshot ?? false,
    logLevel: options.logLevel ?? 'info',
    logsMode: options.logsMode ?? 'human',
    enableMetrics: options.enableMetrics ?? false,
    maxNumberOfTasks: options.maxNumberOfTasks ?? 1_000_000,
    maxTaskDbSize: options.maxTaskDbSize ?? 20 * 1024 ** 3,
    clusterNatsUrls: options.clusterNatsUrls ?? [],
    clusterNodeName: options.clusterNodeName ?? null,
    clusterReplicas: options.clusterReplicas ?? 3,
    experimentalAllowedIpNetworks: options.experimentalAllowedIpNetworks ?? [],
    remoteTimeoutMs: options.remoteTimeoutMs ?? 25_000,
  };
  if (!LOG_LEVELS.includes(resolved.logLevel)) {
    throw new Error(`invalid log level \`${resolved.logLevel}\`: expected one of ${LOG_LEVELS.map((level) => `\`${level}\``).join(', ')}`);
  }
  if (resolved.logsMode !== 'human' && resolved.logsMode !== 'json') {
    throw new Error(`invalid logs mode \`${resolved.logsMode}\`: expected \`human\` or \`json\``);
  }
  if (resolved.env !== 'development' && resolved.env !== 'production') {
    throw new Error(`invalid env \`${resolved.env}\`: expected \`development\` or \`production\``);
  }
  requirePositiveInteger('workers', resolved.workers);
  requirePositiveInteger('shardsPerIndex', resolved.shardsPerIndex);
  requirePositiveInteger('httpPayloadSizeLimit', resolved.httpPayloadSizeLimit);
  requirePositiveInteger('maxQueuedSearches', resolved.maxQueuedSearches);
  requirePositiveInteger('maxNumberOfTasks', resolved.maxNumberOfTasks);
  requirePositiveInteger('maxTaskDbSize', resolved.maxTaskDbSize);
  requirePositiveInteger('clusterReplicas', resolved.clusterReplicas);
  if (resolved.scheduleSnapshot !== null && !(Number.isFinite(resolved.scheduleSnapshot) && resolved.scheduleSnapshot > 0)) {
    throw new Error(`invalid scheduleSnapshot \`${resolved.scheduleSnapshot}\`: expected a number of seconds above 0`);
  }
  parseHttpAddr(resolved.httpAddr);
  if (resolved.env === 'production') {
    if (resolved.masterKey === null || resolved.masterKey === '') {
      throw new Error('In production mode, you must provide a master key to secure your instance. It can be specified via the MEILI_MASTER_KEY environment variable or the --master-key launch option.');
    }
    const bytes = Buffer.byteLength(resolved.masterKey);
    if (bytes < MASTER_KEY_MIN_BYTES) {
      throw new Error(`The master key must be at least ${MASTER_KEY_MIN_BYTES} bytes in a production environment. The provided key is only ${bytes} bytes.`);
    }
  }
  return resolved;
}

/**
 * What the server says about its master key at start (auth.md §1): open without one, a warning for a
 * short one in development (production refused it already). null when there is nothing to say.
 */
export function masterKeyNotice(options: Pick<ResolvedOptions, 'masterKey' | 'env'>): string | null {
  if (options.masterKey === null) {
    return 'No master key was found. The server will accept unidentified requests. '
      + 'If you need some protection in development mode, please export a key: `export MEILI_MASTER_KEY=xxx`.';
  }
  const bytes = Buffer.byteLength(options.masterKey);
  if (bytes < MASTER_KEY_MIN_BYTES) {
    const suggestion = randomBytes(32).toString('base64url');
    return `The provided master key is too short (${bytes} bytes). A master key of at least ${MASTER_KEY_MIN_BYTES} bytes will be required when switching to a production environment. `
      + `We generated a secure master key for you (you can safely use this token): >> --master-key ${suggestion} <<`;
  }
  return null;
}

export function parseHttpAddr(addr: string): { host: string; port: number } {
  const separator = addr.lastIndexOf(':');
  const host = separator > 0 ? addr.slice(0, separator).replace(/^\[(.*)\]$/, '$1') : '';
  const port = Number(addr.slice(separator + 1));
  if (!host || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`invalid http address \`${addr}\`: expected host:port`);
  }
  return { host, port };
}

function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`invalid ${name} \`${value}\`: expected a positive integer`);
}
