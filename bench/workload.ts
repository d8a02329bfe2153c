// Workload files (bench/workloads/*.json): everything that defines a benchmark run, so a run is
// reproducible from its file name and seed. Missing members take the defaults below.
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { datasetKinds, type DatasetSpec } from './dataset.js';
import { queryKinds, type QueryMixSpec } from './query-mix.js';
import { realQueryKinds } from './npm-queries.js';
import type { LoadClient } from './load-generator.js';

export type PayloadFormat = 'json' | 'ndjson';

export interface Workload {
  name: string;
  description: string;
  dataset: DatasetSpec;
  index: { uid: string; settings: Record<string, unknown> };
  load: { batchSize: number; format: PayloadFormat; taskTimeoutSeconds: number };
  queries: QueryMixSpec & { params: Record<string, unknown> };
  concurrency: number;
  durationSeconds: number;
  warmupSeconds: number;
  /**
   * The warm-up also lasts until every query was sent this many times (at most warmupMaxSeconds), so that
   * every dataset size is measured in the same state (load-generator.ts); 0: warmupSeconds alone.
   */
  warmupPasses: number;
  warmupMaxSeconds: number;
  /** What sends the measured runs' requests: autocannon (per-kind latency, answer checks) or wrk (lighter; wrk-load.ts). */
  client: LoadClient;
  /** Measured search runs after the warm-up; every search figure is their median. */
  runs: number;
  /** Peer engines run on the same data and queries (see peerNames). */
  peers: PeerName[];
  /** After Skein's search phase, restart it on the same database and time its first answers (issue 5). */
  restart: boolean;
  /**
   * "runs": warm-up + measured runs (autocannon or wrk, POST bodies). "windows": the real-text phase
   * (real-run.ts): GET searches in consecutive wrk windows from the moment the engine is ready, no warm-up.
   */
  phase: 'runs' | 'windows';
  windows: WindowsSpec;
}

/** The "windows" phase (real-run.ts); ignored by "runs" workloads. */
export interface WindowsSpec {
  /** Consecutive measured windows for Skein, and for each peer, of `seconds` each. */
  count: number;
  peerCount: number;
  seconds: number;
  /** The "repeated" variant: this many queries cycled, for `repeatedWindows` windows after the unique ones. */
  repeatedQueries: number;
  repeatedWindows: number;
  /**
   * Skein only: windows of the next unique queries sent with a browser's `Accept-Encoding` (gzip answers,
   * as every browser and instant-meilisearch get them), after the unique ones; 0: off.
   */
  compressedWindows: number;
  /**
   * Skein only: windows of the next unique queries as instant-meilisearch sends them (POST /multi-search,
   * every displayed attribute highlighted, a browser's headers), after the compressed ones; 0: off.
   */
  instantSearchWindows: number;
  /** Quality: the first `count` queries, `concurrency` at a time, at most `maxSeconds`, scored per kind. */
  quality: { count: number; concurrency: number; maxSeconds: number };
  /** Cost by kind: the last `count` queries of the list, one at a time, at most `maxSeconds`; count 0: off. */
  latency: { count: number; maxSeconds: number };
  /** Mixed (Skein only): one read-only window, then `windows` windows with `batchSize` new documents POSTed every second; 0 windows: off. */
  mixed: { windows: number; batchSize: number };
}

/** Peer engines, each in bench/peers/<name>-peer.ts behind the same minimal uWS server. */
export const peerNames = ['minisearch', 'flexsearch', 'orama', 'sqlite', 'ceiling'] as const;
export type PeerName = (typeof peerNames)[number];

export interface WorkloadOverrides {
  documents?: number;
  durationSeconds?: number;
  warmupSeconds?: number;
  warmupPasses?: number;
  concurrency?: number;
  client?: LoadClient;
  runs?: number;
  peers?: PeerName[];
  /** false with --no-restart; undefined keeps the workload's value. */
  restart?: boolean;
  /** --windows N: Skein's and the peers' window count. */
  windows?: number;
}

const defaults: Omit<Workload, 'name'> = {
  description: '',
  dataset: { kind: 'movies', documents: 100_000, seed: 42, vocabularySize: 50_000, zipfExponent: 1 },
  index: { uid: 'bench', settings: {} },
  load: { batchSize: 10_000, format: 'json', taskTimeoutSeconds: 900 },
  queries: { count: 10_000, limit: 20, skipTopRanks: 20, mix: { word: 1 }, params: {} },
  concurrency: 64,
  durationSeconds: 15,
  warmupSeconds: 3,
  // Three: the runs after one pass still rose (caches admitting on a second visit); the first pass's
  // figures are the first visits, the other two settle unreported (load-generator.ts).
  warmupPasses: 3,
  warmupMaxSeconds: 60,
  client: 'autocannon',
  runs: 3,
  peers: [],
  restart: true,
  phase: 'runs',
  windows: {
    count: 6,
    peerCount: 4,
    seconds: 10,
    repeatedQueries: 100,
    repeatedWindows: 1,
    compressedWindows: 1,
    instantSearchWindows: 1,
    quality: { count: 1000, concurrency: 4, maxSeconds: 30 },
    latency: { count: 600, maxSeconds: 20 },
    mixed: { windows: 2, batchSize: 1000 },
  },
};

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function section<T extends object>(raw: Json, key: string, fallback: T): T {
  const value = raw[key];
  if (value === undefined) return { ...fallback };
  if (!isObject(value)) throw new Error(`workload: "${key}" must be an object`);
  return { ...fallback, ...value } as T;
}

function windowsSection(raw: Json): WindowsSpec {
  const spec = section(raw, 'windows', defaults.windows);
  const given = isObject(raw.windows) ? raw.windows : {};
  return {
    ...spec,
    quality: { ...defaults.windows.quality, ...(isObject(given.quality) ? given.quality : {}) },
    latency: { ...defaults.windows.latency, ...(isObject(given.latency) ? given.latency : {}) },
    mixed: { ...defaults.windows.mixed, ...(isObject(given.mixed) ? given.mixed : {}) },
  };
}

function positiveInteger(value: unknown, what: string, allowZero = false): number {
  if (!Number.isInteger(value) || (value as number) < (allowZero ? 0 : 1)) {
    throw new Error(`workload: ${what} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${JSON.stringify(value)}`);
  }
  return value as number;
}

export function resolveWorkload(raw: unknown, name: string): Workload {
  if (!isObject(raw)) throw new Error(`workload ${name}: must be a JSON object`);
  const workload: Workload = {
    name: typeof raw.name === 'string' ? raw.name : name,
    description: typeof raw.description === 'string' ? raw.description : defaults.description,
    dataset: section(raw, 'dataset', defaults.dataset),
    index: section(raw, 'index', defaults.index),
    load: section(raw, 'load', defaults.load),
    queries: section(raw, 'queries', defaults.queries),
    concurrency: raw.concurrency === undefined ? defaults.concurrency : (raw.concurrency as number),
    durationSeconds: raw.durationSeconds === undefined ? defaults.durationSeconds : (raw.durationSeconds as number),
    warmupSeconds: raw.warmupSeconds === undefined ? defaults.warmupSeconds : (raw.warmupSeconds as number),
    warmupPasses: raw.warmupPasses === undefined ? defaults.warmupPasses : (raw.warmupPasses as number),
    warmupMaxSeconds: raw.warmupMaxSeconds === undefined ? defaults.warmupMaxSeconds : (raw.warmupMaxSeconds as number),
    client: raw.client === undefined ? defaults.client : (raw.client as LoadClient),
    runs: raw.runs === undefined ? defaults.runs : (raw.runs as number),
    peers: raw.peers === undefined ? [...defaults.peers] : (raw.peers as PeerName[]),
    restart: raw.restart === undefined ? defaults.restart : (raw.restart as boolean),
    phase: raw.phase === undefined ? defaults.phase : (raw.phase as Workload['phase']),
    windows: windowsSection(raw),
  };
  validate(workload);
  return workload;
}

function validate(workload: Workload): void {
  const { dataset, load, queries } = workload;
  if (!datasetKinds().includes(dataset.kind)) throw new Error(`workload: unknown dataset kind "${dataset.kind}"`);
  positiveInteger(dataset.documents, 'dataset.documents');
  positiveInteger(dataset.seed, 'dataset.seed', true);
  positiveInteger(dataset.vocabularySize, 'dataset.vocabularySize');
  if (!(dataset.zipfExponent >= 0)) throw new Error('workload: dataset.zipfExponent must be >= 0');
  if (typeof workload.index.uid !== 'string' || !/^[a-zA-Z0-9_-]+$/.test(workload.index.uid)) {
    throw new Error('workload: index.uid must be alphanumeric, - or _');
  }
  if (!isObject(workload.index.settings)) throw new Error('workload: index.settings must be an object');
  positiveInteger(load.batchSize, 'load.batchSize');
  if (load.format !== 'json' && load.format !== 'ndjson') throw new Error('workload: load.format must be "json" or "ndjson"');
  positiveInteger(load.taskTimeoutSeconds, 'load.taskTimeoutSeconds');
  positiveInteger(queries.count, 'queries.count');
  positiveInteger(queries.limit, 'queries.limit', true);
  positiveInteger(queries.skipTopRanks, 'queries.skipTopRanks', true);
  if (!isObject(queries.mix)) throw new Error('workload: queries.mix must be an object of weights');
  if (workload.phase !== 'runs' && workload.phase !== 'windows') throw new Error('workload: phase must be "runs" or "windows"');
  const kinds: readonly string[] = workload.phase === 'windows' ? realQueryKinds : queryKinds;
  if (workload.phase === 'windows' && dataset.kind !== 'npm') throw new Error('workload: phase "windows" needs the dataset kind "npm"');
  for (const [kind, weight] of Object.entries(queries.mix)) {
    if (!kinds.includes(kind)) {
      throw new Error(`workload: unknown query kind "${kind}" (known: ${kinds.join(', ')})`);
    }
    if (typeof weight !== 'number' || weight < 0) throw new Error(`workload: weight of "${kind}" must be a number >= 0`);
  }
  if (!isObject(queries.params)) throw new Error('workload: queries.params must be an object');
  positiveInteger(workload.concurrency, 'concurrency');
  positiveInteger(workload.durationSeconds, 'durationSeconds');
  positiveInteger(workload.warmupSeconds, 'warmupSeconds', true);
  positiveInteger(workload.warmupPasses, 'warmupPasses', true);
  positiveInteger(workload.warmupMaxSeconds, 'warmupMaxSeconds');
  positiveInteger(workload.runs, 'runs');
  if (workload.client !== 'autocannon' && workload.client !== 'wrk') throw new Error('workload: client must be "autocannon" or "wrk"');
  validatePeers(workload.peers);
  if (typeof workload.restart !== 'boolean') throw new Error('workload: restart must be true or false');
  const windows = workload.windows;
  positiveInteger(windows.count, 'windows.count');
  positiveInteger(windows.peerCount, 'windows.peerCount');
  positiveInteger(windows.seconds, 'windows.seconds');
  positiveInteger(windows.repeatedQueries, 'windows.repeatedQueries');
  positiveInteger(windows.repeatedWindows, 'windows.repeatedWindows', true);
  positiveInteger(windows.compressedWindows, 'windows.compressedWindows', true);
  positiveInteger(windows.instantSearchWindows, 'windows.instantSearchWindows', true);
  positiveInteger(windows.quality.count, 'windows.quality.count', true);
  positiveInteger(windows.quality.concurrency, 'windows.quality.concurrency');
  positiveInteger(windows.quality.maxSeconds, 'windows.quality.maxSeconds');
  positiveInteger(windows.latency.count, 'windows.latency.count', true);
  positiveInteger(windows.latency.maxSeconds, 'windows.latency.maxSeconds');
  positiveInteger(windows.mixed.windows, 'windows.mixed.windows', true);
  positiveInteger(windows.mixed.batchSize, 'windows.mixed.batchSize');
}

export function validatePeers(peers: unknown): asserts peers is PeerName[] {
  if (!Array.isArray(peers)) throw new Error('workload: peers must be an array of names');
  for (const peer of peers) {
    if (!(peerNames as readonly unknown[]).includes(peer)) throw new Error(`unknown peer "${String(peer)}" (known: ${peerNames.join(', ')})`);
  }
}

export function applyOverrides(workload: Workload, overrides: WorkloadOverrides): Workload {
  return resolveWorkload(
    {
      ...workload,
      dataset: { ...workload.dataset, documents: overrides.documents ?? workload.dataset.documents },
      concurrency: overrides.concurrency ?? workload.concurrency,
      durationSeconds: overrides.durationSeconds ?? workload.durationSeconds,
      warmupSeconds: overrides.warmupSeconds ?? workload.warmupSeconds,
      warmupPasses: overrides.warmupPasses ?? workload.warmupPasses,
      client: overrides.client ?? workload.client,
      runs: overrides.runs ?? workload.runs,
      peers: overrides.peers ?? workload.peers,
      restart: overrides.restart ?? workload.restart,
      windows: overrides.windows === undefined ? workload.windows : { ...workload.windows, count: overrides.windows, peerCount: overrides.windows },
    },
    workload.name,
  );
}

/** How the warm-up was bounded, in words. */
export function warmupText(workload: Workload): string {
  if (workload.warmupPasses === 0) return `${workload.warmupSeconds} s warm-up`;
  const passes = workload.warmupPasses === 1 ? 'one pass' : `${workload.warmupPasses} passes`;
  return `warm-up of ${passes} over the ${workload.queries.count} queries (at least ${workload.warmupSeconds} s, at most ${workload.warmupMaxSeconds} s)`;
}

export function loadWorkloadFile(path: string): Workload {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read workload ${path}: ${(error as Error).message}`);
  }
  return resolveWorkload(raw, basename(path, '.json'));
}

export function listWorkloadFiles(directory: string): string[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => join(directory, file));
}

/** A workload argument is a path to a file, or a name looked up in the workloads directory. */
export function workloadPath(argument: string, directory: string): string {
  if (argument.includes('/') || argument.endsWith('.json')) return argument;
  return join(directory, `${argument}.json`);
}
