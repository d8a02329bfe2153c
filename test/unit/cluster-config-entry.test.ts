// Cluster mode: /keys writes and features changes from the skein-config stream are applied with their
// sequence in one transaction (src/scheduler/config/config-entry.ts): a refusal is an outcome (the sequence is
// stored, the same refusal on every node), a replay changes nothing, a gap is refused.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyConfigEntry, appliedConfigSeq } from '../../src/scheduler/config/config-entry.js';
import { applyKeyCommand } from '../../src/scheduler/config/key-store.js';
import { closeStorage, openStorage } from '../../src/storage/environment.js';
import type { KeyRecord } from '../../src/auth/key-record.js';

const RECORD = {
  uid: '0b3f9a52-4f3e-4c7e-9d0a-6f1f3d2b8c11', name: 'k', description: null, actions: ['search'], indexes: ['*'],
  expiresAt: null, createdAt: '2026-11-27T00:00:00Z', updatedAt: '2026-11-27T00:00:00Z',
} as unknown as KeyRecord;

test('config entries: applied in order with their sequence; refusals stored as outcomes; replays change nothing; gaps refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'skein-config-entry-'));
  const storage = openStorage(dir);
  try {
    t.is(appliedConfigSeq(storage), 0);
    t.deepEqual(applyConfigEntry(storage, 1, () => applyKeyCommand(storage, { op: 'create', record: RECORD })), RECORD);
    t.is(appliedConfigSeq(storage), 1);
    // The same uid again: refused, and the refusal is the entry's outcome (its sequence is applied).
    const refused = t.throws(() => applyConfigEntry(storage, 2, () => applyKeyCommand(storage, { op: 'create', record: { ...RECORD, name: 'other' } })));
    t.is((refused as { code?: string }).code, 'api_key_already_exists');
    t.is(appliedConfigSeq(storage), 2);
    t.is((storage.keys.get(RECORD.uid) as unknown as KeyRecord).name, "k");
    // A replay of sequence 1 after a delete at 3 does not bring the key back.
    applyConfigEntry(storage, 3, () => applyKeyCommand(storage, { op: 'delete', uid: RECORD.uid }));
    t.is(applyConfigEntry(storage, 1, () => applyKeyCommand(storage, { op: 'create', record: RECORD })), null);
    t.is(storage.keys.get(RECORD.uid), undefined);
    // A gap: nothing applied.
    const gap = t.throws(() => applyConfigEntry(storage, 5, () => applyKeyCommand(storage, { op: 'create', record: RECORD })));
    t.regex(gap!.message, /does not follow/);
    t.is(storage.keys.get(RECORD.uid), undefined);
    t.is(appliedConfigSeq(storage), 3);
  } finally {
    await closeStorage(storage);
    rmSync(dir, { recursive: true, force: true });
  }
});
