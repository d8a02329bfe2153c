// The JSON of a search's final hits. A worker leaves a verbatim hit's document out of its answer
// (HitMessage.document null) and the front reads the stored JSON here, after merging: only the hits
// returned are read (not offset + limit per shard), and the worker, the busiest thread, spends
// nothing on them.
import type { HitMessage } from '../../protocol/messages.js';

/** Where the stored JSON is read: LMDB's documents database (text) or the front's cache (UTF-8 bytes). */
export interface StoredDocuments<T = string> {
  get(key: [indexUid: string, docId: number]): T | undefined;
}

/**
 * The hits' documents, in order. A hit whose document was deleted between the worker's ranking and
 * this read is left out rather than shown empty.
 */
export function hitDocuments<T>(documents: StoredDocuments<T>, indexUid: string, hits: readonly HitMessage[], ids?: number[]): (T | string)[] {
  const out: (T | string)[] = [];
  for (const hit of hits) {
    const document = hit.document ?? documents.get([indexUid, hit.docId]);
    if (document === undefined) continue;
    out.push(document);
    ids?.push(hit.docId);
  }
  return out;
}
