// The keys of the store in the shape every request needs: O(1) lookup by value and by uid. A token is
// looked up by its SHA-256 digest, then compared with timingSafeEqual, so response times reveal
// nothing about how much of a key value a guess got right.
import { createHash, timingSafeEqual } from 'node:crypto';
import { expandActions } from './actions.js';
import type { KeyEntry, KeyLookup } from './access.js';
import { deriveKeyValue, type KeyRecord } from './key-record.js';

/** What identify() answers for the master key. */
export const MASTER = 'master' as const;

export class KeyRing implements KeyLookup {
  private readonly byDigest = new Map<string, KeyEntry>();
  private readonly byUidMap = new Map<string, KeyEntry>();
  private readonly masterDigest: Buffer | null;

  constructor(private readonly masterKey: string | null, records: Iterable<KeyRecord>) {
    this.masterDigest = masterKey === null ? null : digest(masterKey);
    if (masterKey === null) return;
    for (const record of records) {
      const value = deriveKeyValue(masterKey, record.uid);
      const entry: KeyEntry = { record, value, actions: expandActions(record.actions) };
      this.byDigest.set(digest(value).toString('latin1'), entry);
      this.byUidMap.set(record.uid.toLowerCase(), entry);
    }
  }

  isMasterKey(token: string): boolean {
    return this.identify(token) === MASTER;
  }

  byValue(token: string): KeyEntry | undefined {
    const found = this.identify(token);
    return found === MASTER ? undefined : found;
  }

  /** The master key, a stored key, or neither — with ONE digest of the token (it runs on every request). */
  identify(token: string): typeof MASTER | KeyEntry | undefined {
    const tokenDigest = digest(token);
    if (this.masterDigest !== null && timingSafeEqual(tokenDigest, this.masterDigest)) return MASTER;
    const entry = this.byDigest.get(tokenDigest.toString('latin1'));
    if (!entry) return undefined;
    const given = Buffer.from(token);
    const expected = Buffer.from(entry.value);
    return given.length === expected.length && timingSafeEqual(given, expected) ? entry : undefined;
  }

  byUid(uid: string): KeyEntry | undefined {
    return this.byUidMap.get(uid.toLowerCase());
  }

  /** All records, newest createdAt first (GET /keys). */
  records(): KeyRecord[] {
    return [...this.byUidMap.values()].map((entry) => entry.record).sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
