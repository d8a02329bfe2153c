// /tasks: list, read, cancel, delete. Reads come straight from LMDB (views and filters are the task
// model's, src/tasks); cancel and delete are enqueued and answer 200, not 202, as Meilisearch does.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { echo, SkeinError } from '../../errors/index.js';
import { requireFeature } from '../../storage/experimental-features.js';
import { authorizedTask } from '../../tasks/task-filter.js';
import { listTasks, parseTaskQuery } from '../../tasks/task-query.js';
import { taskView } from '../../tasks/task-view.js';
import type { TaskContent } from '../../tasks/task-record.js';
import { jsonReply, type FrontRequest } from '../http/http-types.js';
import type { FrontContext, RouteSpec } from '../http/route-spec.js';

export const tasksRoutes: RouteSpec[] = [
  {
    method: 'GET', path: '/tasks', action: 'tasks.get', body: 'none',
    handle: (request, context) => {
      const query = parseTaskQuery(request.query, 'list');
      query.filter.authorizedIndexes = request.access.indexes;
      return jsonReply(200, listTasks(context.storage, query));
    },
  },
  {
    method: 'GET', path: '/tasks/{taskUid}', action: 'tasks.get', body: 'none',
    handle: (request, context) => {
      const uid = parseTaskUid(request.params.taskUid!);
      const record = context.storage.tasks.get(uid);
      if (!record || !authorizedTask(request.access.indexes, record)) throw new SkeinError('task_not_found', `Task \`${uid}\` not found.`);
      return jsonReply(200, taskView(record));
    },
  },
  {
    // Experimental (getTaskDocumentsRoute): the NDJSON update file of a documentAdditionOrUpdate task
    // that still has one (enqueued or processing); the file goes once the task is finished.
    method: 'GET', path: '/tasks/{taskUid}/documents', action: 'tasks.get', body: 'none',
    handle: async (request, context) => {
      requireFeature(context.storage.meta, 'getTaskDocumentsRoute', 'Getting the documents of an enqueued task',
        'get task documents route', 'https://github.com/orgs/meilisearch/discussions/808');
      const uid = parseTaskUid(request.params.taskUid!);
      const record = context.storage.tasks.get(uid);
      if (!record || !authorizedTask(request.access.indexes, record)) throw new SkeinError('task_not_found', `Task \`${uid}\` not found.`);
      const noFile = () => new SkeinError('task_file_not_found',
        `Task \`${uid}\` does not contain any documents. Only \`documentAdditionOrUpdate\` tasks with the statuses \`enqueued\` or \`processing\` contain documents`);
      if (record.content.type !== 'documentAdditionOrUpdate') throw noFile();
      let text: string;
      try {
        text = await readFile(join(context.storage.updateFilesDir, record.content.updateFile), 'utf8');
      } catch {
        throw noFile();
      }
      return { status: 200, body: text, contentType: 'application/x-ndjson' };
    },
  },
  {
    method: 'POST', path: '/tasks/cancel', action: 'tasks.cancel', body: 'none',
    handle: (request, context) => enqueueTaskFilter(request, context, 'taskCancelation'),
  },
  {
    method: 'DELETE', path: '/tasks', action: 'tasks.delete', body: 'none',
    handle: (request, context) => enqueueTaskFilter(request, context, 'taskDeletion'),
  },
];

function parseTaskUid(raw: string): number {
  return parseUidSegment(raw, 'invalid_task_uids', 'Task');
}

/** A task or batch uid from the path: digits only, within u32 (Meilisearch's `invalid_task_uids` / `invalid_batch_uids`). */
export function parseUidSegment(raw: string, code: 'invalid_task_uids' | 'invalid_batch_uids', noun: 'Task' | 'Batch'): number {
  const uid = Number(raw);
  if (!/^\d+$/.test(raw) || uid > 0xffffffff) {
    throw new SkeinError(code, `${noun} uid \`${echo(raw)}\` is invalid. It should only contain numeric characters.`);
  }
  return uid;
}

async function enqueueTaskFilter(request: FrontRequest, context: FrontContext, type: 'taskCancelation' | 'taskDeletion') {
  // Validates the filters (missing_task_filters, invalid_task_*) before anything is enqueued.
  parseTaskQuery(request.query, type === 'taskCancelation' ? 'cancel' : 'delete');
  const content: TaskContent = {
    type,
    filter: Object.fromEntries(request.query),
    originalFilter: `?${request.rawQuery}`,
    // The scheduler computes the matches when it assigns the new task's uid (only older tasks match).
    matchedUids: [],
    authorizedIndexes: request.access.indexes === null ? null : [...request.access.indexes],
  };
  return jsonReply(200, await context.scheduler.enqueue(content));
}
