// Public JSON shapes of indexes (key order as Meilisearch serializes them).
import type { IndexRecord } from '../../storage/records.js';
import { setOwn } from '../../documents/own-fields.js';

export function indexView(record: IndexRecord): Record<string, unknown> {
  return { uid: record.uid, createdAt: record.createdAt, updatedAt: record.updatedAt, primaryKey: record.primaryKey };
}

/** field -> count with keys sorted, as Meilisearch's BTreeMap serializes it. */
export function sortedFieldDistribution(distribution: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(distribution).sort()) setOwn(out, key, distribution[key]!);
  return out;
}
