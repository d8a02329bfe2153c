// POST /dumps: enqueues a dumpCreation task (global, action dumps.create); the scheduler writes
// `<dumpUid>.dump` in --dump-dir (src/scheduler/operations/dump-batch.ts, src/dump/writer.ts).
import { jsonReply } from '../http/http-types.js';
import type { RouteSpec } from '../http/route-spec.js';

export const dumpsRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/dumps', action: 'dumps.create', body: 'none',
    handle: async (_request, context) => jsonReply(202, await context.scheduler.enqueue({ type: 'dumpCreation' })),
  },
];
