// Sizes of the LMDB environment for GET /stats and the task queue's bound: the file's size on disk,
// and the bytes of pages the b-trees hold (what Meilisearch calls the used size: the rest of the file
// is free pages, reused by later writes, e.g. after an index deletion). Readable from any thread.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'lmdb';
import type { Storage } from './environment.js';

interface TreeStats {
  pageSize: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
}

function pagesOf(stats: TreeStats): number {
  return stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages;
}

/** Bytes of the pages one named db's b-tree holds. */
export function storeSize(db: Pick<Database, 'getStats'>): number {
  const stats = db.getStats() as TreeStats;
  return pagesOf(stats) * stats.pageSize;
}

/** The data file's size (databaseSize in /stats). */
export function databaseFileSize(storage: Pick<Storage, 'dbPath'>): number {
  try {
    return statSync(join(storage.dbPath, 'lmdb', 'data.mdb')).size;
  } catch {
    return 0;
  }
}

/** Pages in use: every named db's, the root's and the free list's own, and the two meta pages (usedDatabaseSize). */
export function usedDatabaseSize(storage: Storage): number {
  const rootStats = storage.root.getStats() as TreeStats & { free?: TreeStats };
  let pages = 2 + pagesOf(rootStats) + (rootStats.free ? pagesOf(rootStats.free) : 0);
  for (const db of [storage.meta, storage.tasks, storage.indexes, storage.documents, storage.externalIds, storage.keys]) {
    pages += pagesOf(db.getStats() as TreeStats);
  }
  return pages * rootStats.pageSize;
}
