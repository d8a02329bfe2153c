// The data-folder lock: held against this and other live processes, taken over from dead ones
// (kill -9 leaves the file), from a reused pid and from before a reboot.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { LOCK_FILE_NAME, lockDataFolder } from '../../src/storage/data-folder-lock.js';

function withFolder(body: (dbPath: string) => Promise<void> | void) {
  return async () => {
    const dbPath = mkdtempSync(join(tmpdir(), 'skein-lock-'));
    try {
      await body(dbPath);
    } finally {
      rmSync(dbPath, { recursive: true, force: true });
    }
  };
}


test('held against a second lock in the same process until released; the folder holds only skein.lock', (t) =>
  withFolder((dbPath) => {
    const lock = lockDataFolder(dbPath);
    t.throws(() => lockDataFolder(dbPath), { message: new RegExp(`is in use by another Skein server in this process \\(pid ${process.pid}\\)`) });
    t.deepEqual(readdirSync(dbPath), [LOCK_FILE_NAME]);
    lock.release();
    lock.release();
    t.false(existsSync(join(dbPath, LOCK_FILE_NAME)));
    lockDataFolder(dbPath).release();
  })());

test('held against a live process, whose pid the message names', (t) =>
  withFolder(async (dbPath) => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      const start = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const fields = start.slice(start.lastIndexOf(')') + 2).split(' ');
      const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      writeFileSync(join(dbPath, LOCK_FILE_NAME), JSON.stringify({ pid: child.pid, start: fields[19], boot }));
      t.throws(() => lockDataFolder(dbPath), { message: new RegExp(`is in use by another Skein process \\(pid ${child.pid}\\)`) });
    } finally {
      child.kill('SIGKILL');
    }
  })());

test('taken over from a dead process, a reused pid, an earlier boot and an unreadable file', (t) =>
  withFolder((dbPath) => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stale = [
      { pid: Number(dead.stdout), start: '1', boot },
      // This very process's pid, but another start time: the pid was reused.
      { pid: process.pid, start: '1', boot },
      // A live pid, but written before the last boot.
      { pid: 1, start: null, boot: 'another-boot' },
    ].map((holder) => JSON.stringify(holder)).concat(['', 'not json', '{"pid":-4}']);
    for (const content of stale) {
      writeFileSync(join(dbPath, LOCK_FILE_NAME), content);
      const lock = lockDataFolder(dbPath);
      t.is(JSON.parse(readFileSync(lock.path, 'utf8')).pid, process.pid, content);
      t.deepEqual(readdirSync(dbPath), [LOCK_FILE_NAME], 'no file left aside');
      lock.release();
    }
  })());

test('release leaves a lock file that is no longer its own', (t) =>
  withFolder((dbPath) => {
    const lock = lockDataFolder(dbPath);
    writeFileSync(lock.path, JSON.stringify({ pid: 1, start: null, boot: null }));
    lock.release();
    t.true(existsSync(lock.path));
  })());
