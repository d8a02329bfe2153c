import test from 'ava';
import { SkeinError } from '../../src/errors/index.js';
import { parseTaskQuery, type TaskQueryPurpose } from '../../src/tasks/task-query.js';

function errorOf(query: string, purpose: TaskQueryPurpose = 'list'): { code: string; message: string } {
  try {
    parseTaskQuery(new URLSearchParams(query), purpose);
  } catch (error) {
    if (error instanceof SkeinError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error(`no error for ${query}`);
}

test('defaults: limit 20, no from, not reversed, no criteria', (t) => {
  const query = parseTaskQuery(new URLSearchParams(''), 'list');
  t.is(query.limit, 20);
  t.is(query.from, null);
  t.false(query.reverse);
  t.is(query.filter.uids, null);
});

test('lists, stars and case-insensitive types and statuses', (t) => {
  const { filter, limit, from, reverse } = parseTaskQuery(new URLSearchParams('uids=1,2&types=indexcreation,SettingsUpdate&statuses=Failed&indexUids=*&limit=5&from=9&reverse=true'), 'list');
  t.deepEqual([...filter.uids!], [1, 2]);
  t.deepEqual([...filter.types!], ['indexCreation', 'settingsUpdate']);
  t.deepEqual([...filter.statuses!], ['failed']);
  t.is(filter.indexUids, null);
  t.is(limit, 5);
  t.is(from, 9);
  t.true(reverse);
});

test('bad values give the deserr messages of Meilisearch', (t) => {
  t.deepEqual(errorOf('uids=doggo'), { code: 'invalid_task_uids', message: 'Invalid value in parameter `uids`: could not parse `doggo` as a positive integer' });
  t.deepEqual(errorOf('uids=1,dogo', 'delete'), { code: 'invalid_task_uids', message: 'Invalid value in parameter `uids[1]`: could not parse `dogo` as a positive integer' });
  t.is(errorOf('canceledBy=x').code, 'invalid_task_canceled_by');
  t.is(errorOf('limit=-1').code, 'invalid_task_limit');
  t.is(errorOf('from=a').message, 'Invalid value in parameter `from`: could not parse `a` as a positive integer');
  t.is(errorOf('reverse=*').message, 'Invalid value in parameter `reverse`: could not parse `*` as a boolean, expected either `true` or `false`');
  t.is(errorOf('statuses=doggo').message, 'Task status `doggo` is invalid. Available task statuses are `enqueued`, `processing`, `succeeded`, `failed`, `canceled`.');
  t.regex(errorOf('types=indexCreation,doggo').message, /^Task type `doggo` is invalid\. Available task types are `documentAdditionOrUpdate`, `documentEdition`, .*\.$/);
  t.deepEqual(errorOf('indexUids=the good doggo'), { code: 'invalid_index_uid', message: 'Invalid value in parameter `indexUids`: `the good doggo` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 512 bytes.' });
  t.deepEqual(errorOf('afterEnqueuedAt=doggo'), { code: 'invalid_task_after_enqueued_at', message: 'Invalid value in parameter `afterEnqueuedAt`: `doggo` is an invalid date-time. It should follow the YYYY-MM-DD or RFC 3339 date-time format.' });
  t.is(errorOf('beforeFinishedAt=2024-13-01').code, 'invalid_task_before_finished_at');
});

test('unknown parameters: list knows pagination, cancel and delete do not', (t) => {
  t.deepEqual(errorOf('limit=1', 'cancel'), {
    code: 'bad_request',
    message: 'Unknown parameter `limit`: expected one of `uids`, `batchUids`, `canceledBy`, `types`, `statuses`, `indexUids`, `afterEnqueuedAt`, `beforeEnqueuedAt`, `afterStartedAt`, `beforeStartedAt`, `afterFinishedAt`, `beforeFinishedAt`',
  });
  t.regex(errorOf('foo=1').message, /^Unknown parameter `foo`: expected one of `limit`, `from`, `reverse`, /);
});

test('cancel and delete need a filter; `*` counts as one', (t) => {
  t.deepEqual(errorOf('', 'cancel'), {
    code: 'missing_task_filters',
    message: 'Query parameters to filter the tasks to cancel are missing. Available query parameters are: `uids`, `indexUids`, `statuses`, `types`, `canceledBy`, `beforeEnqueuedAt`, `afterEnqueuedAt`, `beforeStartedAt`, `afterStartedAt`, `beforeFinishedAt`, `afterFinishedAt`.',
  });
  t.regex(errorOf('', 'delete').message, /tasks to delete are missing/);
  t.notThrows(() => parseTaskQuery(new URLSearchParams('statuses=*'), 'delete'));
});

test('date bounds: a bare date is midnight UTC, after skips the whole day; offsets are honoured', (t) => {
  const { filter } = parseTaskQuery(new URLSearchParams('afterEnqueuedAt=2024-01-01&beforeEnqueuedAt=2024-01-03&afterStartedAt=2024-01-01T10:00:00%2B02:00'), 'list');
  t.is(filter.enqueuedAt.after, Date.UTC(2024, 0, 2) * 1000);
  t.is(filter.enqueuedAt.before, Date.UTC(2024, 0, 3) * 1000);
  t.is(filter.startedAt.after, Date.UTC(2024, 0, 1, 8) * 1000);
});
