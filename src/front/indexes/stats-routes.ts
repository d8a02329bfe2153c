// GET /health, /version, /stats and /indexes/{uid}/stats.
import { canSeeIndex } from '../../auth/access.js';
import { BUILD_INFO } from '../../config/build-info.js';
import { databaseFileSize, storeSize, usedDatabaseSize } from '../../storage/database-size.js';
import type { Storage } from '../../storage/environment.js';
import { TASK_STORE_THRESHOLD_PERCENT } from '../../tasks/task-queue-bounds.js';
import { PROCESSING_INDEX_UIDS } from '../../storage/meta-keys.js';
import type { IndexRecord } from '../../storage/records.js';
import { denyUnknownParameters } from '../http/deserr-messages.js';
import { jsonReply } from '../http/http-types.js';
import { sortedFieldDistribution } from './index-views.js';
import { validateIndexUid } from './index-uid.js';
import type { FrontContext, RouteSpec } from '../http/route-spec.js';
import { setOwn } from '../../documents/own-fields.js';

/** The Meilisearch version whose API Skein speaks (GET /version answers Skein's own version, BUILD_INFO). */
export const COMPATIBLE_MEILISEARCH_VERSION = '1.50.0';

const STATS_PARAMETERS = ['showInternalDatabaseSizes', 'sizeFormat'];

export const statsRoutes: RouteSpec[] = [
  {
    method: 'GET', path: '/health', action: null, body: 'none',
    // Meilisearch's shape ({ status }); while a thread is being replaced the server cannot serve
    // searches or writes: 503, so a load balancer or supervisor looking at the status code sees it.
    handle: (_request, context) => context.threads.available
      ? jsonReply(200, { status: 'available' })
      : jsonReply(503, { status: 'unavailable' }),
  },
  {
    method: 'GET', path: '/version', action: 'version', body: 'none',
    // Meilisearch's shape, in its order; clients only display it (meilisearch-js types it as three strings).
    handle: () => jsonReply(200, { commitSha: BUILD_INFO.commitSha, commitDate: BUILD_INFO.commitDate, pkgVersion: BUILD_INFO.pkgVersion }),
  },
  {
    method: 'GET', path: '/stats', action: 'stats.get', body: 'none',
    handle: (request, context) => {
      denyUnknownParameters(request.query, STATS_PARAMETERS);
      const records = context.indexes.list().filter((index) => canSeeIndex(request.access, index.uid));
      const indexing = indexesBeingProcessed(context.storage);
      const indexes: Record<string, unknown> = {};
      let lastUpdate: string | null = null;
      for (const record of records) {
        setOwn(indexes, record.uid, indexStats(record, indexing.has(record.uid)));
        if (lastUpdate === null || record.updatedAt > lastUpdate) lastUpdate = record.updatedAt;
      }
      const body = {
        databaseSize: databaseFileSize(context.storage), usedDatabaseSize: usedDatabaseSize(context.storage), lastUpdate, indexes,
        taskQueue: taskQueueStats(context),
      };
      // lmdb-js's getStats() leaves the read transaction marked renewed without renewing it (task-queue-housekeeping.ts).
      context.storage.root.resetReadTxn();
      return jsonReply(200, body);
    },
  },
  {
    method: 'GET', path: '/indexes/{indexUid}/stats', action: 'stats.get', body: 'none',
    handle: (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      denyUnknownParameters(request.query, STATS_PARAMETERS);
      const record = context.indexes.require(uid);
      return jsonReply(200, indexStats(record, indexesBeingProcessed(context.storage).has(uid)));
    },
  },
];

function indexStats(record: IndexRecord, isIndexing: boolean): Record<string, unknown> {
  // Records written before the scheduler kept this count read as 0 rather than scanning documents here.
  const rawDocumentDbSize = record.rawDocumentDbSize ?? 0;
  return {
    numberOfDocuments: record.documentCount,
    rawDocumentDbSize,
    avgDocumentSize: record.documentCount === 0 ? 0 : Math.floor(rawDocumentDbSize / record.documentCount),
    isIndexing,
    numberOfEmbeddings: 0,
    numberOfEmbeddedDocuments: 0,
    fieldDistribution: sortedFieldDistribution(record.fieldDistribution),
  };
}

/** Indexes with a task in the `processing` state right now, as the scheduler publishes them. */
function indexesBeingProcessed(storage: Storage): Set<string> {
  return new Set(JSON.parse(String(storage.meta.get(PROCESSING_INDEX_UIDS) ?? '[]')) as string[]);
}

/**
 * Skein's addition (Meilisearch's /stats has no field for it; its Prometheus metrics
 * meilisearch_task_queue_{used_size,max_size,size_until_stop_registering} say the same): the task
 * store's bytes, its bound (maxTaskDbSize), the bytes left before new tasks are refused (40% of the
 * bound), and how many tasks it holds (the oldest finished ones are deleted past maxNumberOfTasks).
 */
function taskQueueStats(context: FrontContext): Record<string, number> {
  const usedSize = storeSize(context.storage.tasks);
  const stopAt = Math.floor(context.options.maxTaskDbSize * TASK_STORE_THRESHOLD_PERCENT / 100);
  return {
    numberOfTasks: (context.storage.tasks.getStats() as { entryCount: number }).entryCount,
    maxNumberOfTasks: context.options.maxNumberOfTasks,
    usedSize,
    maxSize: context.options.maxTaskDbSize,
    sizeUntilStopRegistering: Math.max(0, stopAt - usedSize),
  };
}
