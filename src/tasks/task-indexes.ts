// Which index uids a task names, and renaming them (swaps and renames rewrite the older tasks' uids,
// as Meilisearch's swap_index_uid_in_task). Pure.
import { SkeinError } from '../errors/index.js';
import type { IndexSwapPair, TaskContent, TaskRecord } from './task-record.js';

/** Every index uid the task concerns (Meilisearch's KindWithContent::indexes): a swap names all of its pairs, a rename both uids. */
export function indexesOfTask(content: TaskContent): string[] {
  if (content.type === 'indexSwap') return [...new Set(content.swaps.flatMap((swap) => swap.indexes))];
  if (content.type === 'indexUpdate' && content.newIndexUid != null) return [content.indexUid, content.newIndexUid];
  return 'indexUid' in content ? [content.indexUid] : [];
}

/** A task the swap module processes (batched alone): a swap, or an index update that renames. */
export function isSwapOrRename(content: TaskContent): boolean {
  return content.type === 'indexSwap' || (content.type === 'indexUpdate' && content.newIndexUid != null);
}

/**
 * The task with every uid `renames` maps replaced (its index, its content's, a swap's pairs in content
 * and details); null when it names none of them. As Meilisearch, an index update's details keep their
 * oldIndexUid/newIndexUid.
 */
export function renamedTask(task: TaskRecord, renames: ReadonlyMap<string, string>): TaskRecord | null {
  const rename = (uid: string) => renames.get(uid) ?? uid;
  if (!indexesOfTask(task.content).some((uid) => renames.has(uid))) return null;
  const content = { ...task.content } as TaskContent & { indexUid?: string; newIndexUid?: string | null };
  if (content.indexUid !== undefined) content.indexUid = rename(content.indexUid);
  if (content.type === 'indexUpdate' && content.newIndexUid != null) content.newIndexUid = rename(content.newIndexUid);
  let details = task.details;
  if (content.type === 'indexSwap') {
    content.swaps = renamedPairs(content.swaps, rename);
    if (details && Array.isArray(details.swaps)) details = { ...details, swaps: renamedPairs(details.swaps as IndexSwapPair[], rename) };
  }
  return { ...task, indexUid: task.indexUid === null ? null : rename(task.indexUid), content, details };
}

function renamedPairs(pairs: readonly IndexSwapPair[], rename: (uid: string) => string): IndexSwapPair[] {
  return pairs.map((pair) => ({ ...pair, indexes: [rename(pair.indexes[0]), rename(pair.indexes[1])] }));
}

/** Meilisearch's check_index_swap_validity, at registration: an index in two places of one swap is refused. */
export function checkSwapDuplicates(swaps: readonly IndexSwapPair[]): void {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { indexes } of swaps) {
    for (const uid of indexes) {
      if (seen.has(uid)) duplicates.add(uid);
      seen.add(uid);
    }
  }
  if (duplicates.size === 0) return;
  const sorted = [...duplicates].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  throw new SkeinError('invalid_swap_duplicate_index_found', sorted.length === 1
    ? `Indexes must be declared only once during a swap. \`${sorted[0]}\` was specified several times.`
    : `Indexes must be declared only once during a swap. ${sorted.map((uid) => `\`${uid}\``).join(', ')} were specified several times.`);
}
