// Index creation, update and deletion on a staged index, and the implicit creation done by document
// additions and settings updates. Errors are the SkeinErrors that fail the task.
import { primaryKeyCannotBeChanged } from '../../documents/primary-key.js';
import { SkeinError } from '../../errors/index.js';
import { defaultSettings } from '../../settings/index-settings.js';
import type { IndexRecord } from '../../storage/records.js';
import type { StagedIndex } from '../batching/staged-index.js';

export function newIndexRecord(uid: string, primaryKey: string | null, shardCount: number, now: string): IndexRecord {
  return {
    uid, primaryKey, createdAt: now, updatedAt: now, shardCount, nextSeq: 0, documentCount: 0, rawDocumentDbSize: 0,
    fieldDistribution: {}, knownFields: {}, settings: defaultSettings(),
  };
}

export function indexNotFound(uid: string): SkeinError {
  return new SkeinError('index_not_found', `Index \`${uid}\` not found.`);
}

export function requireIndex(stage: StagedIndex): IndexRecord {
  if (stage.record === null) throw indexNotFound(stage.uid);
  return stage.record;
}

/** Document additions and settings updates create their index when it is missing. */
export function ensureIndex(stage: StagedIndex, shardCount: number, now: string): IndexRecord {
  stage.record ??= stage.keyed(newIndexRecord(stage.uid, null, shardCount, now));
  return stage.record;
}

export function applyIndexCreation(stage: StagedIndex, primaryKey: string | null, shardCount: number, now: string): void {
  if (stage.record !== null) throw new SkeinError('index_already_exists', `Index \`${stage.uid}\` already exists.`);
  stage.record = stage.keyed(newIndexRecord(stage.uid, primaryKey, shardCount, now));
}

/** The primary key may change only while the index holds no document. */
export function applyIndexUpdate(stage: StagedIndex, primaryKey: string | null): void {
  const record = requireIndex(stage);
  if (primaryKey === null || primaryKey === record.primaryKey) return;
  if (record.documentCount > 0 && record.primaryKey !== null) {
    const error = primaryKeyCannotBeChanged(record.primaryKey);
    // Raised by the index scheduler around milli, so the message names the index.
    throw new SkeinError(error.code, `Index \`${stage.uid}\`: ${error.message}`);
  }
  record.primaryKey = primaryKey;
}

/** Returns deletedDocuments (the documents the index held). */
export function applyIndexDeletion(stage: StagedIndex): number {
  const record = requireIndex(stage);
  stage.record = null;
  return record.documentCount;
}
