// Loads a dataset into a fresh index over HTTP and measures end-to-end indexing throughput: from the
// first document POST to the moment the last document task is seen succeeded. Payloads are generated
// before the clock starts so the figure measures the server, not the generator.
import type { Dataset } from './dataset.js';
import type { SkeinHttpClient, TaskView } from './skein-http.js';
import type { PayloadFormat } from './workload.js';

export interface LoadOptions {
  indexUid: string;
  settings: Record<string, unknown>;
  batchSize: number;
  format: PayloadFormat;
  taskTimeoutSeconds: number;
  log?: (line: string) => void;
}

export interface LoadResult {
  documents: number;
  batches: number;
  payloadBytes: number;
  /** Client-side payload generation; not part of the throughput. */
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

  const generationStart = performance.now();
  const total = dataset.spec.documents;
  const batches: Buffer<ArrayBuffer>[] = [];
  for (let start = 0; start < total; start += options.batchSize) {
    batches.push(encodeBatch(dataset, start, Math.min(total, start + options.batchSize), options.format));
  }
  const payloadBytes = batches.reduce((sum, batch) => sum + batch.length, 0);
  const generationSeconds = seconds(generationStart, performance.now());
  log(`generated ${total} documents in ${batches.length} batches (${(payloadBytes / 1e6).toFixed(1)} MB) in ${generationSeconds} s`);

  const start = performance.now();
  const taskUids: number[] = [];
  for (const batch of batches) {
    taskUids.push(await client.enqueue('POST', `${indexPath}/documents`, batch, contentTypes[options.format]));
  }
  const uploaded = performance.now();
  log(`uploaded in ${seconds(start, uploaded)} s; waiting for ${taskUids.length} tasks`);

  // Tasks of one index run in order, so waiting on each in turn ends when the last one finishes;
  // every task is checked so a failed batch is never hidden behind a later success.
  const finished: TaskView[] = [];
  for (const uid of taskUids) finished.push(await client.waitForTask(uid, timeoutMs, 25));
  const end = performance.now();

  const totalSeconds = seconds(start, end);
  return {
    documents: total,
    batches: batches.length,
    payloadBytes,
    generationSeconds,
    uploadSeconds: seconds(start, uploaded),
    totalSeconds,
    documentsPerSecond: Math.round(total / Math.max(totalSeconds, 0.001)),
    serverProcessingSeconds: serverSpan(finished[0], finished[finished.length - 1]),
    indexedDocuments: await readDocumentCount(client, options.indexUid),
    taskUids,
  };
}
