// /keys writes on the scheduler thread (the only LMDB writer): create, update, delete, each one
// synced transaction, answered directly (keys are not tasks). Also seeds the default keys.
import { defaultKeyRecords, type KeyRecord } from '../../auth/key-record.js';
import { SkeinError } from '../../errors/index.js';
import type { KeyCommand } from '../../protocol/messages.js';
import type { Storage } from '../../storage/environment.js';
import { nowRfc3339 } from '../../tasks/timestamps.js';

type KeyStorage = Pick<Storage, 'root' | 'keys'>;

/** Applies one command; returns the stored record (null after a delete). Throws a SkeinError. */
export function applyKeyCommand(storage: KeyStorage, command: KeyCommand): KeyRecord | null {
  switch (command.op) {
    case 'create': {
      const record = command.record;
      return storage.root.transactionSync(() => {
        if (storage.keys.get(record.uid) !== undefined) {
          throw new SkeinError('api_key_already_exists', `\`${record.uid}\` already exists.`);
        }
        storage.keys.put(record.uid, record as unknown as Record<string, unknown>);
        return record;
      });
    }
    case 'update':
      return storage.root.transactionSync(() => {
        const stored = storage.keys.get(command.uid) as KeyRecord | undefined;
        if (!stored) throw keyNotFound(command.uid);
        const updated: KeyRecord = { ...stored, updatedAt: command.updatedAt };
        if (command.name !== undefined) updated.name = command.name;
        if (command.description !== undefined) updated.description = command.description;
        storage.keys.put(command.uid, updated as unknown as Record<string, unknown>);
        return updated;
      });
    case 'delete':
      storage.root.transactionSync(() => {
        if (storage.keys.get(command.uid) === undefined) throw keyNotFound(command.uid);
        storage.keys.remove(command.uid);
      });
      return null;
    case 'seedDefaults':
      seedKeys(storage, command.records);
      return null;
  }
}

/**
 * At startup: an empty key store gets the default keys (auth.md §2), whether or not a master key is set.
 * Not in cluster mode: there they come once through the config log, the same records on every node
 * (cluster/config-log.ts, KeyCommand `seedDefaults`).
 */
export function seedDefaultKeys(storage: KeyStorage, now: string = nowRfc3339()): void {
  seedKeys(storage, defaultKeyRecords(now));
}

function seedKeys(storage: KeyStorage, records: KeyRecord[]): void {
  storage.root.transactionSync(() => {
    for (const _ of storage.keys.getKeys({ limit: 1 })) return;
    for (const record of records) storage.keys.put(record.uid, record as unknown as Record<string, unknown>);
  });
}

function keyNotFound(key: string): SkeinError {
  return new SkeinError('api_key_not_found', `API key \`${key}\` not found.`);
}
