// Parsing of the task routes' query parameters (GET /tasks, POST /tasks/cancel, DELETE /tasks) into a
// TaskFilter, with Meilisearch's deserr error codes and messages (tasks.md §5-§6, errors.md).
import { echo, SkeinError, type ErrorCode } from '../errors/index.js';
import { emptyTaskFilter, type DateBounds, type TaskFilter } from './task-filter.js';
import { MICROS_PER_DAY, parseDateOnlyMicros, parseRfc3339Micros } from './timestamps.js';
import { TASK_STATUSES, TASK_TYPES, type TaskStatus, type TaskType } from './task-record.js';

export { listTasks, matchTasks, type TaskList } from './task-listing.js';
export type { TaskFilter } from './task-filter.js';

export type TaskQueryPurpose = 'list' | 'cancel' | 'delete';

export interface TaskQuery {
  filter: TaskFilter;
  limit: number;
  /** null: start from the newest (or, reversed, the oldest) task. */
  from: number | null;
  reverse: boolean;
}

export const DEFAULT_TASK_LIMIT = 20;
const MAX_U32 = 0xffffffff;

const PAGINATION_PARAMS = ['limit', 'from', 'reverse'] as const;
const FILTER_PARAMS = [
  'batchUids', 'uids', 'canceledBy', 'types', 'statuses', 'indexUids',
  'afterEnqueuedAt', 'beforeEnqueuedAt', 'afterStartedAt', 'beforeStartedAt', 'afterFinishedAt', 'beforeFinishedAt',
] as const;
/** The order deserr lists them in "Unknown parameter" messages. */
const CANCEL_OR_DELETE_PARAMS = ['uids', 'batchUids', 'canceledBy', 'types', 'statuses', 'indexUids',
  'afterEnqueuedAt', 'beforeEnqueuedAt', 'afterStartedAt', 'beforeStartedAt', 'afterFinishedAt', 'beforeFinishedAt'];
const LIST_PARAMS = [...PAGINATION_PARAMS, ...FILTER_PARAMS];

const DATE_PARAMS: Record<string, { field: 'enqueuedAt' | 'startedAt' | 'finishedAt'; side: keyof DateBounds; code: ErrorCode }> = {
  afterEnqueuedAt: { field: 'enqueuedAt', side: 'after', code: 'invalid_task_after_enqueued_at' },
  beforeEnqueuedAt: { field: 'enqueuedAt', side: 'before', code: 'invalid_task_before_enqueued_at' },
  afterStartedAt: { field: 'startedAt', side: 'after', code: 'invalid_task_after_started_at' },
  beforeStartedAt: { field: 'startedAt', side: 'before', code: 'invalid_task_before_started_at' },
  afterFinishedAt: { field: 'finishedAt', side: 'after', code: 'invalid_task_after_finished_at' },
  beforeFinishedAt: { field: 'finishedAt', side: 'before', code: 'invalid_task_before_finished_at' },
};

const INDEX_UID = /^[A-Za-z0-9_-]+$/;
const MAX_INDEX_UID_BYTES = 400;

/**
 * Throws the SkeinError Meilisearch answers for the first bad parameter, in query-string order.
 * Cancel/delete without any filter parameter (even `*`) throws missing_task_filters.
 */
export function parseTaskQuery(params: URLSearchParams, purpose: TaskQueryPurpose): TaskQuery {
  const accepted: readonly string[] = purpose === 'list' ? LIST_PARAMS : CANCEL_OR_DELETE_PARAMS;
  const query: TaskQuery = { filter: emptyTaskFilter(), limit: DEFAULT_TASK_LIMIT, from: null, reverse: false };
  let anyFilter = false;
  const seen = new Set<string>();
  for (const [name, value] of params) {
    if (!accepted.includes(name)) {
      throw new SkeinError('bad_request', `Unknown parameter \`${echo(name)}\`: expected one of ${accepted.map((p) => `\`${p}\``).join(', ')}`);
    }
    if (seen.has(name)) continue;
    seen.add(name);
    anyFilter ||= (FILTER_PARAMS as readonly string[]).includes(name);
    applyParam(query, name, value);
  }
  if (purpose !== 'list' && !anyFilter) {
    const verb = purpose === 'cancel' ? 'cancel' : 'delete';
    throw new SkeinError('missing_task_filters', `Query parameters to filter the tasks to ${verb} are missing. Available query parameters are: \`uids\`, \`indexUids\`, \`statuses\`, \`types\`, \`canceledBy\`, \`beforeEnqueuedAt\`, \`afterEnqueuedAt\`, \`beforeStartedAt\`, \`afterStartedAt\`, \`beforeFinishedAt\`, \`afterFinishedAt\`.`);
  }
  return query;
}

function applyParam(query: TaskQuery, name: string, value: string): void {
  const filter = query.filter;
  switch (name) {
    case 'limit': query.limit = parseU32(name, value, 'invalid_task_limit'); return;
    case 'from': query.from = parseU32(name, value, 'invalid_task_from'); return;
    case 'reverse': query.reverse = parseBoolean(name, value, 'invalid_task_reverse'); return;
    case 'uids': filter.uids = starOrList(name, value, (item, at) => parseU32(at, item, 'invalid_task_uids')); return;
    case 'batchUids': filter.batchUids = starOrList(name, value, (item, at) => parseU32(at, item, 'invalid_batch_uids')); return;
    case 'canceledBy': filter.canceledBy = starOrList(name, value, (item, at) => parseU32(at, item, 'invalid_task_canceled_by')); return;
    case 'types': filter.types = starOrList(name, value, (item) => parseType(item)); return;
    case 'statuses': filter.statuses = starOrList(name, value, (item) => parseStatus(item)); return;
    case 'indexUids': filter.indexUids = starOrList(name, value, (item, at) => parseIndexUid(at, item)); return;
    default: {
      const date = DATE_PARAMS[name];
      if (value === '*') return;
      filter[date.field][date.side] = parseDateBound(name, value, date.side, date.code);
    }
  }
}

/** `*` means no criterion; otherwise a comma list whose bad item is reported as `name[i]` when there are several. */
function starOrList<T>(name: string, value: string, parseItem: (item: string, at: string) => T): Set<T> | null {
  if (value === '*') return null;
  const items = value.split(',');
  return new Set(items.map((item, i) => parseItem(item, items.length > 1 ? `${name}[${i}]` : name)));
}

function invalidValue(code: ErrorCode, param: string, reason: string): SkeinError {
  return new SkeinError(code, `Invalid value in parameter \`${param}\`: ${reason}`);
}

function parseU32(param: string, value: string, code: ErrorCode): number {
  const trimmed = value.startsWith('+') ? value.slice(1) : value;
  const parsed = /^\d+$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!Number.isSafeInteger(parsed) || parsed > MAX_U32) throw invalidValue(code, param, `could not parse \`${value}\` as a positive integer`);
  return parsed;
}

function parseBoolean(param: string, value: string, code: ErrorCode): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw invalidValue(code, param, `could not parse \`${value}\` as a boolean, expected either \`true\` or \`false\``);
}

function parseType(value: string): TaskType {
  const found = TASK_TYPES.find((type) => type.toLowerCase() === value.toLowerCase());
  if (found) return found;
  // The reference's wording (tasks.md §2), not deserr's "Invalid value in parameter" one.
  throw new SkeinError('invalid_task_types',
    `Task type \`${value}\` is invalid. Available task types are ${TASK_TYPES.map((t) => `\`${t}\``).join(', ')}.`);
}

function parseStatus(value: string): TaskStatus {
  const found = TASK_STATUSES.find((status) => status === value.toLowerCase());
  if (found) return found;
  throw new SkeinError('invalid_task_statuses',
    `Task status \`${value}\` is invalid. Available task statuses are ${TASK_STATUSES.map((s) => `\`${s}\``).join(', ')}.`);
}

function parseIndexUid(param: string, value: string): string {
  if (INDEX_UID.test(value) && Buffer.byteLength(value) <= MAX_INDEX_UID_BYTES) return value;
  throw invalidValue('invalid_index_uid', param,
    `\`${value}\` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 512 bytes.`);
}

/**
 * Both bounds are exclusive. A bare date means midnight UTC; an `after` bound on a bare date skips the
 * whole day (Meilisearch adds one day), a `before` bound stays at midnight.
 */
function parseDateBound(param: string, value: string, side: keyof DateBounds, code: ErrorCode): number {
  const dateOnly = parseDateOnlyMicros(value);
  if (dateOnly !== null) return side === 'after' ? dateOnly + MICROS_PER_DAY : dateOnly;
  const dateTime = parseRfc3339Micros(value);
  if (dateTime !== null) return dateTime;
  throw invalidValue(code, param, `\`${value}\` is an invalid date-time. It should follow the YYYY-MM-DD or RFC 3339 date-time format.`);
}
