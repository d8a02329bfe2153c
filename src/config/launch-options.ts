// Every launch option Skein accepts: Meilisearch's (crates/meilisearch/src/option.rs, v1.5x: the same
// long flag, MEILI_* variable and snake_case config-file key) plus Skein's own. Each one either sets a
// SkeinOptions field or is accepted with a warning saying it has no effect here. One table: the help,
// the parser, the config-file keys and the warnings all read it.
import { parseByteSize } from './byte-size.js';
import { IpPolicy } from '../network/ip-policy.js';
import type { LogLevel, LogsMode, SkeinEnv, SkeinOptions } from './options.js';

/** How a value is read. `flag`: no value on the command line; MEILI_* "false", "0", "off", "no"... is false. */
export type ValueKind =
  | 'path' | 'text' | 'flag' | 'env' | 'byteSize' | 'positiveInteger' | 'count' | 'logLevel' | 'logsMode'
  | 'scheduleSnapshot' | 'url' | 'threads' | 'ipNetworks';

export interface LaunchOption {
  /** Long flag without `--`. */
  flag: string;
  /** Environment variable; every option has one but --config-file-path's own (MEILI_CONFIG_FILE_PATH). */
  env: string;
  kind: ValueKind;
  /** The value's name in the help when the kind's (VALUE_NAMES) does not say enough. */
  valueName?: string;
  description: string;
  /** The default as the help shows it; omitted when there is none. */
  defaultText?: string;
  /** Help section. */
  group: 'Options' | 'Snapshots and dumps' | 'Logs and metrics' | 'Skein' | 'Experimental' | 'Accepted, no effect in Skein';
  /** Sets the parsed value on SkeinOptions. Absent: the option is accepted and `noEffect` says why it does nothing. */
  apply?: (options: SkeinOptions, value: any) => void;
  noEffect?: string;
}

const NO_TLS = 'plain HTTP only: terminate TLS in a proxy';
const NO_INDEXER = 'indexing runs in the shard workers (--workers)';
const NO_FEATURE = 'Skein has no such feature';
const NO_S3 = 'Skein writes snapshots to --snapshot-dir only';
const RUNTIME_FEATURE = 'turn the feature on with PATCH /experimental-features instead';

export const LAUNCH_OPTIONS: readonly LaunchOption[] = [
  { flag: 'db-path', env: 'MEILI_DB_PATH', kind: 'path', group: 'Options', defaultText: './data.skein',
    description: 'Folder of the database (created if missing)', apply: (o, v) => { o.dbPath = v; } },
  { flag: 'http-addr', env: 'MEILI_HTTP_ADDR', kind: 'text', valueName: 'ADDR', group: 'Options', defaultText: '127.0.0.1:7700',
    description: 'Address and port to listen on (port 0: any free port)', apply: (o, v) => { o.httpAddr = v; } },
  { flag: 'master-key', env: 'MEILI_MASTER_KEY', kind: 'text', valueName: 'KEY', group: 'Options',
    description: 'Master key: protects every route but GET /health (required in production, at least 16 bytes)',
    apply: (o, v) => { o.masterKey = v; } },
  { flag: 'env', env: 'MEILI_ENV', kind: 'env', group: 'Options', defaultText: 'development',
    description: 'Environment: development or production', apply: (o, v) => { o.env = v; } },
  { flag: 'http-payload-size-limit', env: 'MEILI_HTTP_PAYLOAD_SIZE_LIMIT', kind: 'byteSize', group: 'Options', defaultText: '100 MB',
    description: 'Largest accepted request body, in bytes or with a unit (10MiB, 1 GB)', apply: (o, v) => { o.httpPayloadSizeLimit = v; } },
  { flag: 'experimental-search-queue-size', env: 'MEILI_EXPERIMENTAL_SEARCH_QUEUE_SIZE', kind: 'positiveInteger', group: 'Options', defaultText: '1000',
    description: 'Searches waiting for a shard worker beyond which new ones get 503', apply: (o, v) => { o.maxQueuedSearches = v; } },

  { flag: 'workers', env: 'SKEIN_WORKERS', kind: 'positiveInteger', group: 'Skein', defaultText: 'cores - 1 (at least 1)',
    description: 'Shard worker threads', apply: (o, v) => { o.workers = v; } },
  { flag: 'shards-per-index', env: 'SKEIN_SHARDS_PER_INDEX', kind: 'positiveInteger', group: 'Skein', defaultText: 'workers',
    description: 'Shards of a new index', apply: (o, v) => { o.shardsPerIndex = v; } },
  { flag: 'cluster-nats-urls', env: 'SKEIN_CLUSTER_NATS_URLS', kind: 'text', valueName: 'URLS', group: 'Skein',
    description: 'Cluster mode: NATS servers (comma-separated nats:// URLs) whose JetStream task log every node applies',
    apply: (o, v: string) => { o.clusterNatsUrls = v.split(',').map((url) => url.trim()).filter(Boolean); } },
  { flag: 'cluster-node-name', env: 'SKEIN_CLUSTER_NODE_NAME', kind: 'text', valueName: 'NAME', group: 'Skein', defaultText: 'host:port',
    description: 'Cluster mode: this node\'s name', apply: (o, v) => { o.clusterNodeName = v; } },
  { flag: 'cluster-replicas', env: 'SKEIN_CLUSTER_REPLICAS', kind: 'positiveInteger', group: 'Skein', defaultText: '3',
    description: 'Cluster mode: replicas of the task log on the NATS servers', apply: (o, v) => { o.clusterReplicas = v; } },

  { flag: 'dump-dir', env: 'MEILI_DUMP_DIR', kind: 'path', group: 'Snapshots and dumps', defaultText: 'dumps/',
    description: 'Folder where POST /dumps writes dump files', apply: (o, v) => { o.dumpDir = v; } },
  { flag: 'import-dump', env: 'MEILI_IMPORT_DUMP', kind: 'path', group: 'Snapshots and dumps',
    description: 'Import this .dump file at start (fails if a database exists)', apply: (o, v) => { o.importDump = v; } },
  { flag: 'ignore-missing-dump', env: 'MEILI_IGNORE_MISSING_DUMP', kind: 'flag', group: 'Snapshots and dumps',
    description: 'Start without importing when the --import-dump file does not exist', apply: (o, v) => { o.ignoreMissingDump = v; } },
  { flag: 'ignore-dump-if-db-exists', env: 'MEILI_IGNORE_DUMP_IF_DB_EXISTS', kind: 'flag', group: 'Snapshots and dumps',
    description: 'Skip --import-dump when a database already exists', apply: (o, v) => { o.ignoreDumpIfDbExists = v; } },
  { flag: 'snapshot-dir', env: 'MEILI_SNAPSHOT_DIR', kind: 'path', group: 'Snapshots and dumps', defaultText: 'snapshots/',
    description: 'Folder where snapshots are written', apply: (o, v) => { o.snapshotDir = v; } },
  { flag: 'schedule-snapshot', env: 'MEILI_SCHEDULE_SNAPSHOT', kind: 'scheduleSnapshot', group: 'Snapshots and dumps',
    description: 'Take a snapshot every N seconds (86400 when given without a value); off by default', apply: (o, v) => { o.scheduleSnapshot = v; } },
  { flag: 'import-snapshot', env: 'MEILI_IMPORT_SNAPSHOT', kind: 'path', group: 'Snapshots and dumps',
    description: 'Start from this snapshot file (fails if a database exists)', apply: (o, v) => { o.importSnapshot = v; } },
  { flag: 'ignore-missing-snapshot', env: 'MEILI_IGNORE_MISSING_SNAPSHOT', kind: 'flag', group: 'Snapshots and dumps',
    description: 'Start without importing when the --import-snapshot file does not exist', apply: (o, v) => { o.ignoreMissingSnapshot = v; } },
  { flag: 'ignore-snapshot-if-db-exists', env: 'MEILI_IGNORE_SNAPSHOT_IF_DB_EXISTS', kind: 'flag', group: 'Snapshots and dumps',
    description: 'Skip --import-snapshot when a database already exists', apply: (o, v) => { o.ignoreSnapshotIfDbExists = v; } },

  { flag: 'log-level', env: 'MEILI_LOG_LEVEL', kind: 'logLevel', group: 'Logs and metrics', defaultText: 'INFO',
    description: 'OFF, ERROR, WARN, INFO, DEBUG or TRACE', apply: (o, v) => { o.logLevel = v; } },
  { flag: 'experimental-logs-mode', env: 'MEILI_EXPERIMENTAL_LOGS_MODE', kind: 'logsMode', group: 'Logs and metrics', defaultText: 'HUMAN',
    description: 'Log line format: HUMAN or JSON', apply: (o, v) => { o.logsMode = v; } },
  { flag: 'experimental-enable-metrics', env: 'MEILI_EXPERIMENTAL_ENABLE_METRICS', kind: 'flag', group: 'Logs and metrics',
    description: 'Serve Prometheus metrics at GET /metrics', apply: (o, v) => { o.enableMetrics = v; } },

  { flag: 'no-analytics', env: 'MEILI_NO_ANALYTICS', kind: 'flag', group: 'Accepted, no effect in Skein',
    description: 'Meilisearch telemetry opt-out', noEffect: 'Skein collects no analytics' },
  { flag: 'task-webhook-url', env: 'MEILI_TASK_WEBHOOK_URL', kind: 'url', group: 'Accepted, no effect in Skein',
    description: 'URL notified when a task finishes', noEffect: 'Skein sends no task webhooks' },
  { flag: 'task-webhook-authorization-header', env: 'MEILI_TASK_WEBHOOK_AUTHORIZATION_HEADER', kind: 'text', group: 'Accepted, no effect in Skein',
    description: 'Authorization header of the task webhook', noEffect: 'Skein sends no task webhooks' },
  { flag: 'max-indexing-memory', env: 'MEILI_MAX_INDEXING_MEMORY', kind: 'byteSize', group: 'Accepted, no effect in Skein',
    description: 'RAM the indexer may use', noEffect: NO_INDEXER },
  { flag: 'max-indexing-threads', env: 'MEILI_MAX_INDEXING_THREADS', kind: 'threads', group: 'Accepted, no effect in Skein',
    description: 'Indexing threads (a number or "unlimited")', noEffect: NO_INDEXER },
  { flag: 'ssl-cert-path', env: 'MEILI_SSL_CERT_PATH', kind: 'path', group: 'Accepted, no effect in Skein', description: 'TLS certificate', noEffect: NO_TLS },
  { flag: 'ssl-key-path', env: 'MEILI_SSL_KEY_PATH', kind: 'path', group: 'Accepted, no effect in Skein', description: 'TLS private key', noEffect: NO_TLS },
  { flag: 'ssl-auth-path', env: 'MEILI_SSL_AUTH_PATH', kind: 'path', group: 'Accepted, no effect in Skein', description: 'TLS client authentication roots', noEffect: NO_TLS },
  { flag: 'ssl-ocsp-path', env: 'MEILI_SSL_OCSP_PATH', kind: 'path', group: 'Accepted, no effect in Skein', description: 'TLS OCSP response', noEffect: NO_TLS },
  { flag: 'ssl-require-auth', env: 'MEILI_SSL_REQUIRE_AUTH', kind: 'flag', group: 'Accepted, no effect in Skein', description: 'Require TLS client authentication', noEffect: NO_TLS },
  { flag: 'ssl-resumption', env: 'MEILI_SSL_RESUMPTION', kind: 'flag', group: 'Accepted, no effect in Skein', description: 'TLS session resumption', noEffect: NO_TLS },
  { flag: 'ssl-tickets', env: 'MEILI_SSL_TICKETS', kind: 'flag', group: 'Accepted, no effect in Skein', description: 'TLS session tickets', noEffect: NO_TLS },
  { flag: 'upgrade-db', env: 'MEILI_UPGRADE_DB', kind: 'flag', group: 'Accepted, no effect in Skein',
    description: 'Upgrade a database of an older version in place', noEffect: 'Skein has a single database version' },
  { flag: 's3-bucket-url', env: 'MEILI_S3_BUCKET_URL', kind: 'text', group: 'Accepted, no effect in Skein', description: 'S3 snapshots: bucket URL', noEffect: NO_S3 },
  { flag: 's3-bucket-region', env: 'MEILI_S3_BUCKET_REGION', kind: 'text', group: 'Accepted, no effect in Skein', description: 'S3 snapshots: region', noEffect: NO_S3 },
  { flag: 's3-bucket-name', env: 'MEILI_S3_BUCKET_NAME', kind: 'text', group: 'Accepted, no effect in Skein', description: 'S3 snapshots: bucket', noEffect: NO_S3 },
  { flag: 's3-snapshot-prefix', env: 'MEILI_S3_SNAPSHOT_PREFIX', kind: 'text', group: 'Accepted, no effect in Skein', description: 'S3 snapshots: key prefix', noEffect: NO_S3 },
  { flag: 's3-access-key', env: 'MEILI_S3_ACCESS_KEY', kind: 'text', group: 'Accepted, no effect in Skein', description: 'S3 snapshots: access key', noEffect: NO_S3 },
  { flag: 's3-secret-key', env: 'MEILI_S3_SECRET_KEY', kind: 'text', group: 'Accepted, no effect in Skein', description: 'S3 snapshots: secret key', noEffect: NO_S3 },

  { flag: 'experimental-enable-logs-route', env: 'MEILI_EXPERIMENTAL_ENABLE_LOGS_ROUTE', kind: 'flag', group: 'Experimental',
    description: 'The /logs/stream and /logs/stderr routes', noEffect: RUNTIME_FEATURE },
  { flag: 'experimental-contains-filter', env: 'MEILI_EXPERIMENTAL_CONTAINS_FILTER', kind: 'flag', group: 'Experimental',
    description: 'The CONTAINS filter operator', noEffect: RUNTIME_FEATURE },
  { flag: 'experimental-legacy-search-default', env: 'MEILI_EXPERIMENTAL_LEGACY_SEARCH', kind: 'flag', group: 'Experimental',
    description: 'Meilisearch\'s legacy search pipeline by default', noEffect: NO_FEATURE },
  { flag: 'experimental-drop-search-after', env: 'MEILI_EXPERIMENTAL_DROP_SEARCH_AFTER', kind: 'positiveInteger', group: 'Experimental',
    description: 'Seconds after which a waiting search is dropped', noEffect: 'searches are bounded by searchCutoffMs and --experimental-search-queue-size' },
  { flag: 'experimental-nb-searches-per-core', env: 'MEILI_EXPERIMENTAL_NB_SEARCHES_PER_CORE', kind: 'positiveInteger', group: 'Experimental',
    description: 'Concurrent searches per core', noEffect: 'Skein batches searches per shard worker (--workers)' },
  { flag: 'experimental-reduce-indexing-memory-usage', env: 'MEILI_EXPERIMENTAL_REDUCE_INDEXING_MEMORY_USAGE', kind: 'flag', group: 'Experimental',
    description: 'Less RAM while indexing', noEffect: NO_INDEXER },
  { flag: 'experimental-max-number-of-batched-tasks', env: 'MEILI_EXPERIMENTAL_MAX_NUMBER_OF_BATCHED_TASKS', kind: 'count', group: 'Experimental',
    description: 'Most tasks in one batch', noEffect: 'Skein\'s scheduler sizes its own batches' },
  { flag: 'experimental-limit-batched-tasks-total-size', env: 'MEILI_EXPERIMENTAL_LIMIT_BATCHED_TASKS_TOTAL_SIZE', kind: 'byteSize', group: 'Experimental',
    description: 'Largest total payload of one batch', noEffect: 'Skein\'s scheduler sizes its own batches' },
  { flag: 'experimental-embedding-cache-entries', env: 'MEILI_EXPERIMENTAL_EMBEDDING_CACHE_ENTRIES', kind: 'count', group: 'Experimental',
    description: 'Cached query embeddings per embedder', noEffect: 'Skein has no embedders' },
  { flag: 'experimental-personalization-api-key', env: 'MEILI_EXPERIMENTAL_PERSONALIZATION_API_KEY', kind: 'text', group: 'Experimental',
    description: 'API key of the personalization service', noEffect: NO_FEATURE },
  { flag: 'experimental-allowed-ip-networks', env: 'MEILI_EXPERIMENTAL_ALLOWED_IP_NETWORKS', kind: 'ipNetworks', group: 'Experimental',
    description: 'Non-global networks (comma-separated CIDRs, or `any`) /network remotes may be reached at; default: none',
    apply: (o, v: string[]) => { o.experimentalAllowedIpNetworks = v; } },
  { flag: 'experimental-no-edition-2024-for-settings', env: 'MEILI_EXPERIMENTAL_NO_EDITION_2024_FOR_SETTINGS', kind: 'flag', group: 'Experimental',
    description: 'Index settings without the 2024 indexer', noEffect: NO_INDEXER },
  { flag: 'experimental-s3-role-arn', env: 'MEILI_EXPERIMENTAL_S3_ROLE_ARN', kind: 'text', group: 'Experimental', description: 'S3 snapshots: IAM role', noEffect: NO_S3 },
  { flag: 'experimental-s3-web-identity-token-file', env: 'MEILI_EXPERIMENTAL_S3_WEB_IDENTITY_TOKEN_FILE', kind: 'path', group: 'Experimental', description: 'S3 snapshots: web identity token', noEffect: NO_S3 },
  { flag: 'experimental-s3-max-in-flight-parts', env: 'MEILI_EXPERIMENTAL_S3_MAX_IN_FLIGHT_PARTS', kind: 'positiveInteger', group: 'Experimental', description: 'S3 snapshots: parallel parts', noEffect: NO_S3 },
  { flag: 'experimental-s3-compression-level', env: 'MEILI_EXPERIMENTAL_S3_COMPRESSION_LEVEL', kind: 'count', group: 'Experimental', description: 'S3 snapshots: compression level', noEffect: NO_S3 },
  { flag: 'experimental-s3-signature-duration-seconds', env: 'MEILI_EXPERIMENTAL_S3_SIGNATURE_DURATION_SECONDS', kind: 'count', group: 'Experimental', description: 'S3 snapshots: signature duration', noEffect: NO_S3 },
  { flag: 'experimental-s3-multipart-part-size', env: 'MEILI_EXPERIMENTAL_S3_MULTIPART_PART_SIZE', kind: 'byteSize', group: 'Experimental', description: 'S3 snapshots: part size', noEffect: NO_S3 },
];

/** `--config-file-path`: read before the others, never a key of the file itself. */
export const CONFIG_FILE_OPTION = { flag: 'config-file-path', env: 'MEILI_CONFIG_FILE_PATH', defaultText: './config.toml' } as const;

/** The config-file key of an option: its flag in snake_case, as Meilisearch's serde names. */
export function configKey(option: Pick<LaunchOption, 'flag'>): string {
  return option.flag.replaceAll('-', '_');
}

const VALUE_NAMES: Record<ValueKind, string> = {
  path: 'PATH', text: 'TEXT', flag: '', env: 'ENV', byteSize: 'SIZE', positiveInteger: 'N', count: 'N', logLevel: 'LEVEL',
  logsMode: 'MODE', scheduleSnapshot: 'SECS', url: 'URL', threads: 'N', ipNetworks: 'CIDRS',
};

/** The value's name in the help and in error messages (`--db-path <PATH>`). */
export function valueName(option: LaunchOption): string {
  return option.valueName ?? VALUE_NAMES[option.kind];
}

/** A value that cannot be read; the caller says which option and where it came from. */
export class InvalidValue extends Error {}

const FALSEY = new Set(['n', 'no', 'f', 'false', 'off', '0']);
const LOG_LEVELS: readonly LogLevel[] = ['off', 'error', 'warn', 'info', 'debug', 'trace'];
const LOGS_MODES: readonly LogsMode[] = ['human', 'json'];
const DEFAULT_SNAPSHOT_INTERVAL = 86400;

/**
 * The value of `option` from one source. `raw` is a string (command line, environment), `true` for a
 * flag given on the command line, or any TOML value (config file). Throws InvalidValue.
 */
export function parseValue(option: LaunchOption, raw: unknown, source: 'cli' | 'env' | 'file'): unknown {
  switch (option.kind) {
    case 'flag':
      if (raw === true || raw === false) return raw;
      if (typeof raw === 'string' && source === 'env') return !FALSEY.has(raw.trim().toLowerCase());
      throw new InvalidValue('expected a boolean (true or false)');
    case 'path':
    case 'text':
      return requireText(raw);
    case 'env': {
      const text = requireText(raw);
      if (text !== 'development' && text !== 'production') throw new InvalidValue('possible values: development, production');
      return text as SkeinEnv;
    }
    case 'byteSize':
      if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) return raw;
      try {
        return parseByteSize(requireText(raw));
      } catch (cause) {
        if (cause instanceof InvalidValue) throw cause;
        throw new InvalidValue(`${(cause as Error).message}: expected bytes or a size with a unit (100 MB, 10MiB, 1Gb)`);
      }
    case 'positiveInteger': {
      const value = integer(raw);
      if (value === null || value <= 0) throw new InvalidValue('expected a positive integer');
      return value;
    }
    case 'count': {
      const value = integer(raw);
      if (value === null) throw new InvalidValue('expected a non-negative integer');
      return value;
    }
    case 'threads': {
      if (raw === 'unlimited') return null;
      const value = integer(raw);
      if (value === null) throw new InvalidValue('expected a number of threads or `unlimited`');
      return value;
    }
    case 'logLevel': {
      const text = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
      if (!(LOG_LEVELS as readonly string[]).includes(text)) {
        throw new InvalidValue('accepted values are OFF, ERROR, WARN, INFO, DEBUG and TRACE');
      }
      return text as LogLevel;
    }
    case 'logsMode': {
      const text = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
      if (!(LOGS_MODES as readonly string[]).includes(text)) throw new InvalidValue('supported values are HUMAN and JSON');
      return text as LogsMode;
    }
    case 'scheduleSnapshot': {
      // true / given without a value: the default interval; false: off (the config file's boolean form).
      if (raw === true) return DEFAULT_SNAPSHOT_INTERVAL;
      if (raw === false) return null;
      if (source === 'env' && typeof raw === 'string' && /^(true|false)$/i.test(raw.trim())) {
        return raw.trim().toLowerCase() === 'true' ? DEFAULT_SNAPSHOT_INTERVAL : null;
      }
      const value = integer(raw);
      if (value === null || value <= 0) throw new InvalidValue('expected a number of seconds (a positive integer)');
      return value;
    }
    case 'url': {
      const text = requireText(raw);
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        throw new InvalidValue('expected an absolute URL');
      }
      return url.href;
    }
    case 'ipNetworks': {
      const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : null;
      if (list === null || !list.every((item) => typeof item === 'string')) throw new InvalidValue('expected comma-separated CIDR networks');
      const networks = list.map((item: string) => item.trim()).filter((item: string) => item !== '');
      try {
        IpPolicy.fromList(networks);
      } catch (cause) {
        throw new InvalidValue((cause as Error).message);
      }
      return networks;
    }
  }
}

function requireText(raw: unknown): string {
  if (typeof raw !== 'string') throw new InvalidValue('expected a string');
  if (raw === '') throw new InvalidValue('a value is required');
  return raw;
}

/** A non-negative safe integer from digits or a TOML integer; null otherwise. */
function integer(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? raw : null;
  if (typeof raw === 'bigint') return raw >= 0n && raw <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(raw) : null;
  if (typeof raw !== 'string' || !/^\s*\d+\s*$/.test(raw)) return null;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : null;
}

/** Whether a parsed value turns the option on (a flag given as false is not worth a warning). */
export function isSet(option: LaunchOption, value: unknown): boolean {
  return option.kind === 'flag' ? value === true : value !== null && value !== undefined;
}
