// One process per data folder: `<db-path>/skein.lock` names the process that holds the folder. LMDB
// itself lets several processes open one environment, and two Skein processes on one folder would
// each run a scheduler, hand out the same task uids and overwrite each other's records.
//
// Node has no flock, so the lock is a pid file, as PostgreSQL's postmaster.pid: a holder that died
// (kill -9 included) leaves its file behind, and the next start judges it stale because that process
// is gone. A pid can be reused, so the file also names the holder's start time (/proc/<pid>/stat,
// clock ticks since boot) and the boot (/proc/sys/kernel/random/boot_id): a live process with the
// holder's pid but another start time, or any process after a reboot, is not the holder. Where /proc
// is missing (not Linux) only the pid's liveness is checked, which a reused pid can fool into
// refusing to start (the message names the file to delete). Pids are per PID namespace: two
// containers sharing one folder each see the other's pid as absent or as another process, so there
// the lock tells a crashed holder from a live one only if the pid is visible (a kernel lock would be
// needed; Node has none).
//
// The file appears whole and at once: it is written under a private name and hard-linked to
// `skein.lock`, which fails if that name exists. A stale file is renamed aside before it is removed,
// and put back if what was moved is not what was judged stale (a racing start took the folder in
// between): two starts racing over a stale lock cannot both win, short of a third racing them too.
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export const LOCK_FILE_NAME = 'skein.lock';
const ATTEMPTS = 8;

interface Holder {
  pid: number;
  /** Start time of the process in clock ticks since boot; null where /proc is missing. */
  start: string | null;
  boot: string | null;
}

export interface DataFolderLock {
  readonly path: string;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

/** Takes `<dbPath>/skein.lock` or throws an Error naming the process that holds it. */
export function lockDataFolder(dbPath: string): DataFolderLock {
  mkdirSync(dbPath, { recursive: true });
  const path = join(dbPath, LOCK_FILE_NAME);
  const mine = `${JSON.stringify(currentHolder())}\n`;
  const candidate = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(candidate, mine);
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (createExclusively(candidate, path, mine)) return heldLock(path, mine);
      const seen = readIfPresent(path);
      if (seen === null) continue;
      const holder = parseHolder(seen);
      if (holder !== null && isAlive(holder)) {
        const who = holder.pid === process.pid ? 'another Skein server in this process' : 'another Skein process';
        throw new Error(`data folder ${dbPath} is in use by ${who} (pid ${holder.pid}); if no such server runs, delete ${path}`);
      }
      removeIfUnchanged(path, seen, `${candidate}.stale`);
    }
    throw new Error(`could not lock data folder ${dbPath}: ${path} could not be read, created or replaced`);
  } finally {
    unlinkQuietly(candidate);
  }
}

function heldLock(path: string, mine: string): DataFolderLock {
  let held = true;
  return {
    path,
    release() {
      if (!held) return;
      held = false;
      if (readIfPresent(path) === mine) unlinkQuietly(path);
    },
  };
}

/** Creates `path` with `content` only if no file has that name: a link of the written candidate, or O_EXCL where links are refused. */
function createExclusively(candidate: string, path: string, content: string): boolean {
  try {
    linkSync(candidate, path);
    return true;
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw cause;
  }
  try {
    writeFileSync(path, content, { flag: 'wx' });
    return true;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cause;
  }
}

/** Moves the stale file aside; removes it if it is the one judged stale, else puts it back (a racing start took the folder). */
function removeIfUnchanged(path: string, judged: string, aside: string): void {
  try {
    renameSync(path, aside);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw cause;
  }
  if (readIfPresent(aside) !== judged) {
    try {
      linkSync(aside, path);
    } catch {
      // Another start holds the name again; it decides from here.
    }
  }
  unlinkQuietly(aside);
}

function currentHolder(): Holder {
  return { pid: process.pid, start: processStart(process.pid), boot: bootId() };
}

function isAlive(holder: Holder): boolean {
  const boot = bootId();
  if (holder.boot !== null && boot !== null && holder.boot !== boot) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ESRCH') return false;
    // EPERM: a live process of another user.
  }
  if (holder.start === null) return true;
  const start = processStart(holder.pid);
  return start === null || start === holder.start;
}

function parseHolder(text: string): Holder | null {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (!Number.isSafeInteger(value.pid) || (value.pid as number) <= 0) return null;
    return {
      pid: value.pid as number,
      start: typeof value.start === 'string' ? value.start : null,
      boot: typeof value.boot === 'string' ? value.boot : null,
    };
  } catch {
    return null;
  }
}

/** Field 22 of /proc/<pid>/stat (after the parenthesized command name, which may hold spaces). */
function processStart(pid: number): string | null {
  const stat = readIfPresent(`/proc/${pid}/stat`);
  if (stat === null) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

function bootId(): string | null {
  return readIfPresent('/proc/sys/kernel/random/boot_id')?.trim() || null;
}

function readIfPresent(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
