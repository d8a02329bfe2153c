// The process's edges: one server per data folder, one per port, close() ends the connections it
// leaves, and header names with any RFC 9110 token character are answered. Raw sockets (node:net)
// where fetch would hide what the server does to the connection.
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import test from 'ava';
import { startServer } from '../../src/index.js';
import {
  CLI_PATH, freePort, REPO_ROOT, sleep, spawnCli, startTestServer, stopChild, withTempDir, withTestServer,
} from './harness.js';

interface Exchange {
  /** Everything the server sent. */
  text: string;
  /** The server closed (or reset) the connection within the wait. */
  closed: boolean;
}

/** A raw connection to 127.0.0.1:port; `exchange` writes bytes and gathers what comes back. */
class RawConnection {
  private text = '';
  private closed = false;
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.text += chunk;
      this.wake();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((done, fail) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('error', fail);
      socket.once('connect', () => {
        socket.off('error', fail);
        done(new RawConnection(socket));
      });
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Writes `request` (unless closed) and waits until `until(text)` holds, the connection closes, or `waitMs` passes. */
  async exchange(request: string, until: (text: string) => boolean, waitMs: number): Promise<Exchange> {
    this.text = '';
    if (!this.closed) this.socket.write(request, 'latin1');
    const deadline = Date.now() + waitMs;
    while (!until(this.text) && !this.closed && Date.now() < deadline) {
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, Math.max(1, deadline - Date.now()));
        this.waiters.add(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
    return { text: this.text, closed: this.closed };
  }

  /** Waits until the server closes the connection, at most `waitMs`. */
  async waitClosed(waitMs: number): Promise<boolean> {
    return (await this.exchange('', () => false, waitMs)).closed;
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const waiter of this.waiters) waiter();
    this.waiters.clear();
  }
}

/** One whole response on a connection: the head and a Content-Length body. */
function wholeResponse(text: string): boolean {
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headEnd));
  return text.length >= headEnd + 4 + (length ? Number(length[1]) : 0);
}

function get(path: string, extraHeaders = ''): string {
  return `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extraHeaders}\r\n`;
}

/** Runs a process to its end (at most `timeoutMs`, then SIGKILL) and answers its exit code and output. */
function runToExit(args: string[], timeoutMs: number): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, output, timedOut });
    });
  });
}

test('a second server on the same data folder exits non-zero and startServer rejects; the first keeps the folder, and a restart after kill -9 takes it', (t) =>
  withTempDir(async (dbPath) => {
    const first = await spawnCli(dbPath, await freePort());
    try {
      const uid = await first.client.enqueue('POST', '/indexes', { body: { uid: 'lock_first' } });
      await first.client.waitForTask(uid);

      const second = await runToExit([CLI_PATH, '--db-path', dbPath, '--http-addr', `127.0.0.1:${await freePort()}`], 30_000);
      t.false(second.timedOut, `the second process must not run: ${second.output}`);
      t.not(second.code, 0);
      t.regex(second.output, /data folder .* is in use by another Skein process \(pid \d+\)/);

      const error = await t.throwsAsync(
        startServer({ dbPath, httpAddr: '127.0.0.1:0', workers: 1, shardsPerIndex: 1 }).then(async (server) => {
          await server.close();
          return server;
        }),
      );
      t.regex(error?.message ?? '', new RegExp(`data folder ${dbPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another Skein process \\(pid ${first.child.pid}\\)`));

      // The first still owns its task sequence: nothing else wrote a task with the next uid.
      const next = await first.client.enqueue('POST', '/indexes', { body: { uid: 'lock_second' } });
      t.is(next, uid + 1);
      t.is((await first.client.waitForTask(next)).indexUid, 'lock_second');
    } finally {
      await stopChild(first, 'SIGKILL');
    }
    // kill -9 left the lock behind; its process is gone, so the next start takes the folder over.
    const restarted = await spawnCli(dbPath, await freePort());
    try {
      t.is((await restarted.client.get('/indexes/lock_second')).status, 200);
    } finally {
      await stopChild(restarted, 'SIGTERM');
    }
  }));

test('a second server on the same port exits with "address in use" and the first answers every request', (t) =>
  withTempDir(async (firstDb) => {
    const port = await freePort();
    const first = await spawnCli(firstDb, port);
    try {
      await first.client.createIndex('port_first');
      await withTempDir(async (otherDb) => {
        const second = spawn(process.execPath, [CLI_PATH, '--db-path', otherDb, '--http-addr', `127.0.0.1:${port}`], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        second.stdout.on('data', (chunk) => (output += chunk));
        second.stderr.on('data', (chunk) => (output += chunk));
        const exited = new Promise<number | null>((done) => second.once('exit', (code) => done(code)));
        try {
          // Until it exits, or says it listens (then the requests below meet both processes).
          for (let waited = 0; second.exitCode === null && !output.includes('listening') && waited < 30_000; waited += 50) await sleep(50);
          // Fresh connections each: on a shared port the kernel spreads them over both processes.
          for (let attempt = 0; attempt < 20; attempt++) {
            const connection = await RawConnection.open(port);
            try {
              const answer = await connection.exchange(get('/indexes/port_first', 'Connection: close\r\n'), wholeResponse, 5_000);
              t.regex(answer.text, /^HTTP\/1\.1 200 /, `attempt ${attempt}`);
            } finally {
              connection.destroy();
            }
          }
          t.not(await Promise.race([exited, sleep(1_000).then(() => 'running')]), 'running', `the second process must not run: ${output}`);
          t.not(await exited, 0);
          t.regex(output, /address in use/i);
        } finally {
          if (second.exitCode === null && second.signalCode === null) second.kill('SIGKILL');
          await exited;
        }
      });
    } finally {
      await stopChild(first, 'SIGTERM');
    }
  }));

test('close() closes kept-alive connections instead of serving them on closed storage', async (t) => {
  const server = await startTestServer({ workers: 1, shardsPerIndex: 1 });
  const idle = await RawConnection.open(server.port);
  const reused = await RawConnection.open(server.port);
  try {
    for (const connection of [idle, reused]) {
      const answer = await connection.exchange(get('/health'), wholeResponse, 5_000);
      t.regex(answer.text, /^HTTP\/1\.1 200 /);
    }
    await server.close();
    // uWS's own idle timeout is ~10 s: a close within 3 s is close()'s doing.
    t.true(await idle.waitClosed(3_000), 'an idle kept-alive connection is closed by close()');
    const after = await reused.exchange(get('/health'), wholeResponse, 3_000);
    t.notRegex(after.text, /^HTTP\/1\.1 5(?!03)/, `no error answer after close(): ${after.text}`);
    t.true(after.closed || reused.isClosed, 'the connection is closed');
  } finally {
    idle.destroy();
    reused.destroy();
  }
});

test('close() answers requests arriving while it waits with 503 and closes their connections', async (t) => {
  const server = await startTestServer({ workers: 1, shardsPerIndex: 1 });
  const connection = await RawConnection.open(server.port);
  try {
    t.regex((await connection.exchange(get('/health'), wholeResponse, 5_000)).text, /^HTTP\/1\.1 200 /);
    const closing = server.close();
    const answer = await connection.exchange(get('/health'), wholeResponse, 5_000);
    await closing;
    // Either answered 503 (arrived while close() waited) or closed unanswered (arrived after).
    if (answer.text !== '') t.regex(answer.text, /^HTTP\/1\.1 503 /);
    t.true(await connection.waitClosed(3_000));
  } finally {
    connection.destroy();
  }
});

test('header names with every RFC 9110 token character are answered', async (t) => {
  await withTestServer({ workers: 1, shardsPerIndex: 1 }, async (server) => {
    const names = ['X_Custom.Header!', "a!#$%&'*+-.^_`|~z", 'X_Forwarded_For', 'x.y', '_', 'Accept-Encoding'];
    for (const name of names) {
      const connection = await RawConnection.open(server.port);
      try {
        const answer = await connection.exchange(get('/health', `${name}: 1\r\n`), wholeResponse, 3_000);
        t.regex(answer.text, /^HTTP\/1\.1 200 /, `header name ${name}`);
        // The connection stays usable for the next request.
        const next = await connection.exchange(get('/health', `${name}: 2\r\nX-Other: 3\r\n`), wholeResponse, 3_000);
        t.regex(next.text, /^HTTP\/1\.1 200 /, `second request with ${name}`);
      } finally {
        connection.destroy();
      }
    }
    // A header read by the server still arrives with a neighbour using these characters.
    const connection = await RawConnection.open(server.port);
    try {
      const answer = await connection.exchange(
        'POST /indexes HTTP/1.1\r\nHost: 127.0.0.1\r\nX_Trace.Id: 7\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}',
        wholeResponse, 3_000,
      );
      t.regex(answer.text, /^HTTP\/1\.1 415 /, 'Content-Type after such a header is read');
    } finally {
      connection.destroy();
    }
    // `_` is not `-`: Content_Type is another header, the request has no Content-Type.
    const underscore = await RawConnection.open(server.port);
    try {
      const answer = await underscore.exchange(
        'POST /indexes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent_Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
        wholeResponse, 3_000,
      );
      t.regex(answer.text, /^HTTP\/1\.1 415 [\s\S]*"code":"missing_content_type"/);
    } finally {
      underscore.destroy();
    }
  });
});

test('a header name with a character outside the token set is still refused', async (t) => {
  await withTestServer({ workers: 1, shardsPerIndex: 1 }, async (server) => {
    for (const name of ['X(Bad)', 'X"Q', 'a b', 'X@Y']) {
      const connection = await RawConnection.open(server.port);
      try {
        const answer = await connection.exchange(get('/health', `${name}: 1\r\n`), wholeResponse, 1_500);
        t.notRegex(answer.text, /^HTTP\/1\.1 200 /, `header name ${name}`);
      } finally {
        connection.destroy();
      }
    }
  });
});
