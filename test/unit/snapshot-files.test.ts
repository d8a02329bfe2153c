import test from 'ava';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { snapshotFolder, snapshotPath, temporaryPathOf, writeFileAtomically } from '../../src/shard/snapshot/snapshot-files.js';

test('a 400-character index uid gets a folder name the file system accepts, distinct per uid', (t) => {
  const dbPath = mkdtempSync(join(tmpdir(), 'skein-snapshot-files-'));
  try {
    const longUid = 'b'.repeat(400);
    const folder = snapshotFolder(dbPath, longUid);
    t.true(Buffer.byteLength(basename(folder)) <= 255);
    t.not(folder, snapshotFolder(dbPath, `${'b'.repeat(399)}c`));
    writeFileAtomically(snapshotPath(dbPath, longUid, 0), folder, [new Uint8Array([1, 2, 3])]);
    t.deepEqual([...readFileSync(snapshotPath(dbPath, longUid, 0))], [1, 2, 3]);
    t.is(basename(snapshotFolder(dbPath, 'movies')), 'movies');
  } finally {
    rmSync(dbPath, { recursive: true, force: true });
  }
});

test('a save cut short leaves one temporary file per shard, which the next save replaces', (t) => {
  const dbPath = mkdtempSync(join(tmpdir(), 'skein-snapshot-files-'));
  try {
    const folder = snapshotFolder(dbPath, 'movies');
    const path = snapshotPath(dbPath, 'movies', 3);
    writeFileAtomically(path, folder, [new Uint8Array([1])]);
    writeFileSync(temporaryPathOf(path), 'half a snapshot'); // as a kill during the next save leaves it
    writeFileAtomically(path, folder, [new Uint8Array([2, 2])]);
    t.deepEqual(readdirSync(folder), ['3.bin']);
    t.deepEqual([...readFileSync(path)], [2, 2]);
  } finally {
    rmSync(dbPath, { recursive: true, force: true });
  }
});
