// Loads a dataset into a fresh index over HTTP and measures end-to-end indexing throughput: from the
// first document POST to the moment the last document task is seen succeeded. Payloads are generated
// before the clock starts so the figure measures the server, not the generator: in memory for small
// datasets, into a cache file (bench/.cache/, reused by later runs) read back batch by batch for large ones.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dataset } from './dataset.js';
import { PayloadCacheReader, preparePayloadCache, type PayloadCache } from './payload-cache.js';
import type { SkeinHttpClient, TaskView } from './skein-http.js';
import { startProgress } from './progress.js';
import type { PayloadFormat } from './workload.js';

/** Above this many documents, payloads go through a cache file read while uploading, not memory. */
export const streamAboveDocuments = 200_000;

/** bench/.cache at the repository root (this file runs as dist/bench/loader.js). */
export const defaultCacheDirectory = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'bench', '.cache');

export interface LoadOptions {
  indexUid: string;
  settings: Record<string, unknown>;
  batchSize: number;
  format: PayloadFormat;
  taskTimeoutSeconds: number;
  log?: (line: string) => void;
  /** Stream payloads from the cache file above this many documents; streamAboveDocuments unless given. */
  streamAboveDocuments?: number;
  /** Where cache files live; defaultCacheDirectory unless given. */
  cacheDirectory?: string;
}

export interface LoadResult {
  documents: number;
  batches: number;
  payloadBytes: number;
  /** Whether payloads were read from the cache file while uploading (large datasets). */
  streamed: boolean;
  /** Client-side payload generation, before the clock starts (0 when a cache file was reused). */
  generationSeconds: number;
  /** The cache file streamed from and whether an earlier run had made it; null when payloads were in memory. */
  payloadCache?: { path: string; reused: boolean } | null;
  /** First POST sent to last 202 received. */
  uploadSeconds: number;
  /** First POST sent to last task seen succeeded. */
  totalSeconds: number;
  documentsPerSecond: number;
  /** Server clock: first document task startedAt to last finishedAt; null if the timestamps are missing. */
  serverProcessingSeconds: number | null;
  /** What GET /indexes/{uid}/stats reports afterwards; null if that route is unavailable. */
  indexedDocuments: number | null;
  taskUids: number[];
}

const contentTypes: Record<PayloadFormat, string> = { json: 'application/json', ndjson: 'application/x-ndjson' };

export function encodeBatch(dataset: Dataset, start: number, end: number, format: PayloadFormat): Buffer<ArrayBuffer> {
  const lines: string[] = [];
  for (let i = start; i < end; i++) lines.push(JSON.stringify(dataset.documentAt(i)));
  return Buffer.from(format === 'json' ? `[${lines.join(',')}]` : lines.join('\n') + '\n');
}

function seconds(fromMs: number, toMs: number): number {
  return Math.round(toMs - fromMs) / 1000;
}

function serverSpan(first: TaskView, last: TaskView): number | null {
  const start = Date.parse(first.startedAt ?? '');
  const end = Date.parse(last.finishedAt ?? '');
  return Number.isFinite(start) && Number.isFinite(end) ? Math.round(end - start) / 1000 : null;
}

async function readDocumentCount(client: SkeinHttpClient, indexUid: string): Promise<number | null> {
  try {
    const { status, json } = await client.request('GET', `/indexes/${indexUid}/stats`);
    const count = (json as { numberOfDocuments?: unknown } | null)?.numberOfDocuments;
    return status === 200 && typeof count === 'number' ? count : null;
  } catch {
    return null;
  }
}

/** Creates the index (and applies settings) before the clock starts, then loads every document. */
export async function loadDataset(client: SkeinHttpClient, dataset: Dataset, options: LoadOptions): Promise<LoadResult> {
  const log = options.log ?? (() => {});
  const timeoutMs = options.taskTimeoutSeconds * 1000;
  const indexPath = `/indexes/${options.indexUid}`;

  const total = dataset.spec.documents;
  const batchCount = Math.ceil(total / options.batchSize);
  const streamed = total > (options.streamAboveDocuments ?? streamAboveDocuments);
  let payloadBytes = 0;
  let generationSeconds = 0;
  let prebuilt: Buffer<ArrayBuffer>[] = [];
  let cache: PayloadCache | null = null;
  let payloadCache: LoadResult['payloadCache'] = null;
  if (streamed) {
    // 1M documents are ~0.5 GB of JSON: too much to hold, too slow to generate while the clock runs.
    cache = preparePayloadCache(options.cacheDirectory ?? defaultCacheDirectory, dataset, options.batchSize, options.format, encodeBatch);
    payloadBytes = cache.offsets[batchCount];
    generationSeconds = cache.generationSeconds;
    payloadCache = { path: cache.path, reused: cache.reused };
    log(`${cache.reused ? 'reusing' : `generated in ${generationSeconds} s`} payload cache ${cache.path} (${(payloadBytes / 1e6).toFixed(1)} MB, ${batchCount} batches, read while uploading)`);
  } else {
    const before = performance.now();
    prebuilt = Array.from({ length: batchCount }, (_, k) =>
      encodeBatch(dataset, k * options.batchSize, Math.min(total, (k + 1) * options.batchSize), options.format));
    generationSeconds = seconds(before, performance.now());
    payloadBytes = prebuilt.reduce((sum, batch) => sum + batch.length, 0);
    log(`generated ${total} documents in ${batchCount} batches (${(payloadBytes / 1e6).toFixed(1)} MB) in ${generationSeconds} s`);
  }

  // After the payloads: an idle keep-alive connection would be closed by the server while a cache is made.
  const setupTasks = [await client.enqueue('POST', '/indexes', JSON.stringify({ uid: options.indexUid, primaryKey: dataset.primaryKey }))];
  if (Object.keys(options.settings).length > 0) {
    setupTasks.push(await client.enqueue('PATCH', `${indexPath}/settings`, JSON.stringify(options.settings)));
  }
  for (const uid of setupTasks) await client.waitForTask(uid, timeoutMs);

  const progress = startProgress('indexing', batchCount * 2, 'steps');
  const start = performance.now();
  const taskUids: number[] = [];
  const reader = cache ? new PayloadCacheReader(cache) : null;
  try {
    for (let k = 0; k < batchCount; k++) {
      const batch = reader ? reader.batch(k) : prebuilt[k];
      if (!reader) prebuilt[k] = Buffer.alloc(0); // let each payload go once sent
      taskUids.push(await client.enqueue('POST', `${indexPath}/documents`, batch, contentTypes[options.format]));
      progress.update(k + 1);
    }
  } finally {
    reader?.close();
  }
  const uploaded = performance.now();
  log(`uploaded in ${seconds(start, uploaded)} s; waiting for ${taskUids.length} tasks`);

  // Tasks of one index run in order, so waiting on each in turn ends when the last one finishes;
  // every task is checked so a failed batch is never hidden behind a later success.
  const finished: TaskView[] = [];
  try {
    for (const uid of taskUids) {
      finished.push(await client.waitForTask(uid, timeoutMs, 25));
      progress.update(batchCount + finished.length);
    }
  } finally {
    progress.stop();
  }
  const end = performance.now();

  const totalSeconds = seconds(start, end);
  return {
    documents: total,
    batches: batchCount,
    payloadBytes,
    streamed,
    generationSeconds,
    payloadCache,
    uploadSeconds: seconds(start, uploaded),
    totalSeconds,
    documentsPerSecond: Math.round(total / Math.max(totalSeconds, 0.001)),
    serverProcessingSeconds: serverSpan(finished[0], finished[finished.length - 1]),
    indexedDocuments: await readDocumentCount(client, options.indexUid),
    taskUids,
  };
}
