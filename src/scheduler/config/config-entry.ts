// Cluster mode: a /keys write or a features change from the skein-config stream (src/cluster/config-log.ts),
// applied on the scheduler thread with its sequence in one transaction. Every node applies the same
// entries in the same order to the same state, so a refusal (a uid that exists, a key not found) is
// the same refusal everywhere; a sequence already applied answers nothing and changes nothing.
import { SkeinError } from '../../errors/index.js';
import type { Storage } from '../../storage/environment.js';
import { CLUSTER_CONFIG_SEQ } from '../../storage/meta-keys.js';

export function appliedConfigSeq(storage: Pick<Storage, 'meta'>): number {
  const value = storage.meta.get(CLUSTER_CONFIG_SEQ);
  return typeof value === 'number' ? value : 0;
}

/** Runs `apply` (its own nested transaction) and stores `seq`; rethrows its refusal after the commit. */
export function applyConfigEntry<T>(storage: Pick<Storage, 'root' | 'meta'>, seq: number, apply: () => T): T | null {
  const outcome = storage.root.transactionSync(() => {
    const applied = appliedConfigSeq(storage);
    if (seq <= applied) return { value: null, error: null };
    if (seq !== applied + 1) {
      return { value: null, error: new SkeinError('internal', `Config log sequence ${seq} does not follow the last applied one (${applied}).`) };
    }
    let value: T | null = null;
    let error: unknown = null;
    try {
      value = apply();
    } catch (cause) {
      error = cause;
    }
    storage.meta.put(CLUSTER_CONFIG_SEQ, seq);
    return { value, error };
  });
  if (outcome.error) throw outcome.error;
  return outcome.value;
}
