// Edits of a STOPPED server's LMDB, from a child process, for tests that must tell a shard restored
// from its snapshot (still knows the old words) from one rebuilt from LMDB (knows the new ones).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './harness.js';

/**
 * Runs `body` against the LMDB of a stopped server in a child process (closing an environment this
 * process wrote to does not return here), answering a JSON result. Writes use putSync: a main-thread
 * write inside transactionSync was lost at the kill.
 */
export function withStorage(dbPath: string, body: string): unknown {
  const script = `import { openStorage } from ${JSON.stringify(join(REPO_ROOT, 'dist/src/storage/environment.js'))};
    const storage = openStorage(${JSON.stringify(dbPath)});
    const result = (() => { ${body} })();
    writeSync(1, JSON.stringify(result ?? null));
    // Killed rather than exited: lmdb-js's exit hooks hang after a write here (transactionSync has committed it).
    process.kill(process.pid, 'SIGKILL');`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', `import { writeSync } from 'node:fs';\n${script}`], { encoding: 'utf8', timeout: 30_000 });
  if (child.signal !== 'SIGKILL') throw new Error(`storage script failed: ${child.stderr}`);
  return JSON.parse(child.stdout);
}

/** Rewrites a stored document behind the engine's back (server stopped): same stamp, new text. */
export function rewriteStoredDocument(dbPath: string, index: string, externalId: string, document: unknown): void {
  withStorage(dbPath, `const docId = storage.externalIds.get([${JSON.stringify(index)}, ${JSON.stringify(externalId)}]);
    if (docId === undefined) throw new Error('no document');
    storage.documents.putSync([${JSON.stringify(index)}, docId], ${JSON.stringify(JSON.stringify(document))});
    if (storage.documents.get([${JSON.stringify(index)}, docId]) !== ${JSON.stringify(JSON.stringify(document))}) throw new Error('not written');`);
}
