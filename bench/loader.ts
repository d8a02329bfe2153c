// Loads a dataset into a fresh index over HTTP and measures end-to-end indexing throughput: from the
// first document POST to the moment the last document task is seen succeeded. Payloads are generated
// before the clock starts so the figure measures the server, not the generator.
import type { Dataset } from './dataset.js';
import type { SkeinHttpClient, TaskView } from './skein-http.js';
import { startProgress } from './progress.js';
import type { PayloadFormat } from './workload.js';

/** Above this many documents, payloads are generated batch by batch while uploading, not all up front. */
export const streamAboveDocuments = 200_000;

export interface LoadOptions {
  indexUid: string;
  settings: Record<string, unknown>;
  batchSize: number;
  format: PayloadFormat;
  taskTimeoutSeconds: number;
  log?: (line: string) => void;
  /** Stream payloads above this many documents; streamAboveDocuments unless given. */
  streamAboveDocuments?: number;
}

export interface LoadResult {
  documents: number;
  batches: number;
  payloadBytes: number;
  /** Whether payloads were generated while uploading (large datasets); then generation is inside totalSeconds. */
  streamed: boolean;
  /** Client-side payload generation; outside the throughput unless `streamed`. */
  generationSeconds: number;
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

  const setupTasks = [await client.enqueue('POST', '/indexes', JSON.stringify({ uid: options.indexUid, primaryKey: dataset.primaryKey }))];
  if (Object.keys(options.settings).length > 0) {
    setupTasks.push(await client.enqueue('PATCH', `${indexPath}/settings`, JSON.stringify(options.settings)));
  }
  for (const uid of setupTasks) await client.waitForTask(uid, timeoutMs);

  const total = dataset.spec.documents;
  const batchCount = Math.ceil(total / options.batchSize);
  const batchAt = (k: number) => encodeBatch(dataset, k * options.batchSize, Math.min(total, (k + 1) * options.batchSize), options.format);
  const streamed = total > (options.streamAboveDocuments ?? streamAboveDocuments);
  let payloadBytes = 0;
  let generationMs = 0;
  const generate = (k: number) => {
    const before = performance.now();
    const batch = batchAt(k);
    generationMs += performance.now() - before;
    payloadBytes += batch.length;
    return batch;
  };

  // Small datasets: every payload is built before the clock starts, so the figure is the server's alone.
  // Large ones (1M documents is ~0.5 GB of JSON) stream: each batch is built just before it is sent and
  // dropped after, and the generation time is reported so it can be taken out of the figure.
  const prebuilt = streamed ? [] : Array.from({ length: batchCount }, (_, k) => generate(k));
  if (!streamed) log(`generated ${total} documents in ${batchCount} batches (${(payloadBytes / 1e6).toFixed(1)} MB) in ${seconds(0, generationMs)} s`);
  else log(`streaming ${total} documents in ${batchCount} batches (generated while uploading)`);
  const generationSecondsBefore = seconds(0, generationMs);

  const progress = startProgress('indexing', batchCount * 2, 'steps');
  const start = performance.now();
  const taskUids: number[] = [];
  for (let k = 0; k < batchCount; k++) {
    const batch = streamed ? generate(k) : prebuilt[k];
    if (!streamed) prebuilt[k] = Buffer.alloc(0); // let each payload go once sent
    taskUids.push(await client.enqueue('POST', `${indexPath}/documents`, batch, contentTypes[options.format]));
    progress.update(k + 1);
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
  const generationSeconds = streamed ? seconds(0, generationMs) : generationSecondsBefore;

  const totalSeconds = seconds(start, end);
  return {
    documents: total,
    batches: batchCount,
    payloadBytes,
    streamed,
    generationSeconds,
    uploadSeconds: seconds(start, uploaded),
    totalSeconds,
    documentsPerSecond: Math.round(total / Math.max(totalSeconds, 0.001)),
    serverProcessingSeconds: serverSpan(finished[0], finished[finished.length - 1]),
    indexedDocuments: await readDocumentCount(client, options.indexUid),
    taskUids,
  };
}
