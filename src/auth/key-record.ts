// API keys as stored (LMDB `keys` db, uid -> record) and as shown (auth.md §3). The key value is never
// stored: it is derived from the master key and the uid, so changing the master key invalidates every value.
import { createHmac, randomUUID } from 'node:crypto';

export interface KeyRecord {
  uid: string;
  name: string | null;
  description: string | null;
  /** As given at creation (wildcards kept); expanded by the key cache. */
  actions: string[];
  indexes: string[];
  /** RFC 3339 UTC, or null: never expires. */
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface KeyView extends Omit<KeyRecord, 'uid'> {
  key: string;
  uid: string;
}

/** hex(HMAC-SHA256(master key, lowercase hyphenated uid)), exactly as Meilisearch. */
export function deriveKeyValue(masterKey: string, uid: string): string {
  return createHmac('sha256', masterKey).update(uid.toLowerCase()).digest('hex');
}

/** The public key object, fields in Meilisearch's order. */
export function keyView(record: KeyRecord, masterKey: string): KeyView {
  return {
    name: record.name,
    description: record.description,
    key: deriveKeyValue(masterKey, record.uid),
    uid: record.uid,
    actions: record.actions,
    indexes: record.indexes,
    expiresAt: record.expiresAt,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export function isExpired(record: Pick<KeyRecord, 'expiresAt'>, nowMillis: number): boolean {
  return record.expiresAt !== null && Date.parse(record.expiresAt) <= nowMillis;
}

const DEFAULT_KEYS: Array<Pick<KeyRecord, 'name' | 'description' | 'actions' | 'indexes'>> = [
  { name: 'Default Search API Key', description: 'Use it to search from the frontend', actions: ['search'], indexes: ['*'] },
  {
    name: 'Default Admin API Key',
    description: 'Use it for anything that is not a search operation. Caution! Do not expose it on a public frontend',
    actions: ['*'], indexes: ['*'],
  },
  {
    name: 'Default Read-Only Admin API Key',
    description: 'Use it to read information across the whole database. Caution! Do not expose this key on a public frontend',
    actions: ['*.get', 'keys.get'], indexes: ['*'],
  },
  { name: 'Default Chat API Key', description: 'Use it to chat and search from the frontend', actions: ['chatCompletions', 'search'], indexes: ['*'] },
];

/** The four keys created when the key store is empty at startup (newest behaviour, auth.md §2); cluster mode: once, through the config log. */
export function defaultKeyRecords(now: string): KeyRecord[] {
  return DEFAULT_KEYS.map((key) => ({ uid: randomUUID(), ...key, expiresAt: null, createdAt: now, updatedAt: now }));
}
