// The `details` object of each task type (tasks.md §2): what it holds while enqueued, and how it
// reads once the task has failed or was canceled. Key order follows Meilisearch's DetailsView.
import { SETTING_NAMES } from '../settings/index-settings.js';
import type { TaskContent } from './task-record.js';

export type TaskDetails = Record<string, unknown>;

/** Details of a task as it is enqueued; null for types without details. */
export function initialDetails(content: TaskContent): TaskDetails | null {
  switch (content.type) {
    case 'documentAdditionOrUpdate':
      return { receivedDocuments: content.documentCount, indexedDocuments: null };
    case 'documentDeletion':
      if ('clear' in content) return { deletedDocuments: null };
      if ('byFilter' in content) return { providedIds: 0, deletedDocuments: null, originalFilter: JSON.stringify(content.byFilter) };
      return { providedIds: content.ids.length, deletedDocuments: null, originalFilter: null };
    case 'documentEdition':
      return { editedDocuments: null, deletedDocuments: null, originalFilter: content.filter == null ? null : JSON.stringify(content.filter),
        context: content.context, function: content.function };
    case 'settingsUpdate':
      return settingsDetails(content.settings, content.isDeletion);
    case 'indexCreation':
      return { primaryKey: content.primaryKey };
    case 'indexUpdate':
      // Meilisearch's DetailsView order: primaryKey, then oldIndexUid and newIndexUid for a rename.
      return content.newIndexUid == null ? { primaryKey: content.primaryKey }
        : { primaryKey: content.primaryKey, oldIndexUid: content.indexUid, newIndexUid: content.newIndexUid };
    case 'indexSwap':
      return { swaps: content.swaps.map((swap) => ({ indexes: [...swap.indexes], rename: swap.rename })) };
    case 'indexDeletion':
      return { deletedDocuments: null };
    case 'dumpCreation':
      return { dumpUid: null };
    case 'taskCancelation':
      return { matchedTasks: content.matchedUids.length, canceledTasks: null, originalFilter: content.originalFilter };
    case 'taskDeletion':
      return { matchedTasks: content.matchedUids.length, deletedTasks: null, originalFilter: content.originalFilter };
    case 'snapshotCreation':
      return null;
    case 'networkTopologyChange':
      return content.next ? { movedDocuments: null } : null;
  }
}

const COUNTED_ON_FINISH = ['indexedDocuments', 'editedDocuments', 'deletedDocuments', 'canceledTasks', 'deletedTasks', 'movedDocuments'];

/** Details of a task that failed or was canceled: the counts it would have reported become 0. */
export function failedDetails(details: TaskDetails | null): TaskDetails | null {
  if (details === null) return null;
  const out: TaskDetails = { ...details };
  for (const key of COUNTED_ON_FINISH) if (key in out) out[key] = 0;
  if ('dumpUid' in out) out.dumpUid = null;
  return out;
}

/** Details of a succeeded task: its counts filled in, other keys as enqueued. */
export function succeededDetails(details: TaskDetails | null, counts: TaskDetails): TaskDetails | null {
  if (details === null) return null;
  const out: TaskDetails = { ...details };
  for (const [key, value] of Object.entries(counts)) if (key in out) out[key] = value;
  return out;
}

const ALL_ATTRIBUTES_SETTINGS = new Set(['displayedAttributes', 'searchableAttributes']);

/**
 * settings.md §4: the submitted keys in struct order; a reset (null) shows `["*"]` for displayed and
 * searchable attributes and null otherwise; a list holding "*" for those two shows `["*"]`.
 * A DELETE /settings (isDeletion) shows every key reset.
 */
export function settingsDetails(settings: Record<string, unknown>, isDeletion: boolean): TaskDetails {
  const out: TaskDetails = {};
  for (const name of SETTING_NAMES) {
    if (!isDeletion && !(name in settings)) continue;
    const value = isDeletion ? null : settings[name];
    if (ALL_ATTRIBUTES_SETTINGS.has(name) && (value === null || (Array.isArray(value) && value.includes('*')))) {
      out[name] = ['*'];
    } else if (SET_SETTINGS.has(name) && Array.isArray(value)) {
      // BTreeSet<String> in Meilisearch's Settings: echoed sorted and deduplicated.
      out[name] = [...new Set(value as string[])].sort(byteOrder);
    } else if (name === 'synonyms' && value !== null && typeof value === 'object') {
      out[name] = Object.fromEntries(Object.entries(value).sort(([a], [b]) => byteOrder(a, b)));
    } else {
      out[name] = value;
    }
  }
  return out;
}

const SET_SETTINGS = new Set(['sortableAttributes', 'stopWords', 'nonSeparatorTokens', 'separatorTokens', 'dictionary']);

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
