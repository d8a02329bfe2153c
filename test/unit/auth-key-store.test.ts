// The scheduler's key store (create/update/delete/seed in LMDB) and the KeyCommand messages.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import type { KeyRecord } from '../../src/auth/index.js';
import { SkeinError } from '../../src/errors/index.js';
import { decodeSchedulerMessage, encodeSchedulerMessage } from '../../src/protocol/scheduler-codec.js';
import { applyKeyCommand, seedDefaultKeys } from '../../src/scheduler/config/key-store.js';
import { closeStorage, openStorage } from '../../src/storage/environment.js';

const RECORD: KeyRecord = {
  uid: '5e1cb5f9-4d8b-4e3a-8b5a-0123456789ab', name: 'n', description: null, actions: ['search'], indexes: ['*'],
  expiresAt: null, createdAt: '2030-01-01T00:00:00.000000Z', updatedAt: '2030-01-01T00:00:00.000000Z',
};

test('KeyCommand and KeyCommandResult round-trip', (t) => {
  const command = { kind: 'keyCommand' as const, requestId: 7, command: { op: 'create' as const, record: RECORD } };
  t.deepEqual(decodeSchedulerMessage(encodeSchedulerMessage(command)), command);
  const result = { kind: 'keyCommandResult' as const, requestId: 7, error: null, record: RECORD };
  t.deepEqual(decodeSchedulerMessage(encodeSchedulerMessage(result)), result);
  const error = new SkeinError('api_key_not_found', 'API key `x` not found.').toBody();
  const failure = { kind: 'keyCommandResult' as const, requestId: 8, error, record: null };
  // Errors cross threads as code + message; the front rebuilds the body from the error table.
  t.like(decodeSchedulerMessage(encodeSchedulerMessage(failure)), { kind: 'keyCommandResult', requestId: 8, record: null, error: { code: error.code, message: error.message } });
});

test('create, duplicate, update, delete, not found; defaults seeded once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'skein-keys-'));
  const storage = openStorage(dir);
  try {
    seedDefaultKeys(storage, 'then');
    seedDefaultKeys(storage, 'later');
    const seeded = [...storage.keys.getRange({})].map(({ value }) => value as unknown as KeyRecord);
    t.is(seeded.length, 4);
    t.true(seeded.every((key) => key.createdAt === 'then'));
    t.deepEqual(applyKeyCommand(storage, { op: 'create', record: RECORD }), RECORD);
    const duplicate = t.throws(() => applyKeyCommand(storage, { op: 'create', record: RECORD }), { instanceOf: SkeinError });
    t.is(duplicate?.code, 'api_key_already_exists');
    const updated = applyKeyCommand(storage, { op: 'update', uid: RECORD.uid, description: 'd', updatedAt: 'now' });
    t.like(updated, { name: 'n', description: 'd', updatedAt: 'now', createdAt: RECORD.createdAt });
    t.is(applyKeyCommand(storage, { op: 'delete', uid: RECORD.uid }), null);
    t.is(storage.keys.get(RECORD.uid), undefined);
    t.is(t.throws(() => applyKeyCommand(storage, { op: 'delete', uid: RECORD.uid }))?.message, `API key \`${RECORD.uid}\` not found.`);
  } finally {
    await closeStorage(storage);
    rmSync(dir, { recursive: true, force: true });
  }
});
