// POST /snapshots (Meilisearch 1.5+): enqueues a snapshotCreation task, answered 202 with the
// summarized task; the scheduler writes the archive (src/scheduler/operations/snapshot-task.ts). No body is read.
import { jsonReply } from '../http/http-types.js';
import type { RouteSpec } from '../http/route-spec.js';

export const snapshotsRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/snapshots', action: 'snapshots.create', body: 'none',
    handle: async (_request, context) => jsonReply(202, await context.scheduler.enqueue({ type: 'snapshotCreation' })),
  },
];
