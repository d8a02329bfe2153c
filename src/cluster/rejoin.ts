// Cluster mode: a node whose task log was purged past what it applied (it was down or frozen while the
// others compacted without it) cannot follow the log any more. Instead of staying at 503 for good, it
// restores itself as a joining node does (main thread): the server is closed, its data folder moved
// aside, a placeholder on the same port answers every request 503 `cluster_node_restoring`, and the
// server starts again on the empty folder, which imports the latest cluster snapshot and follows the log
// after it (snapshot-exchange.ts). From the moment it listens again it behaves as any starting node:
// reads answered from the imported state, GET /health 503 until it caught up with the log. The folder
// moved aside is removed once the new server listens.
import { createServer, type Server } from 'node:http';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseHttpAddr, resolveOptions, type SkeinOptions } from '../config/options.js';
import { SkeinError } from '../errors/index.js';
import { LOCK_FILE_NAME } from '../storage/data-folder-lock.js';
import { CARRIED_LEDGER_FILE, LEDGER_FILE } from './payload-ledger.js';

export interface RestartableServer {
  address: string;
  port: number;
  close(reason?: string): Promise<void>;
}

export interface StartHooks {
  /** The follower found a gap (cluster-node.ts onGap). */
  onClusterGap: (reason: string, log: (message: string) => void) => void;
  /** Called right before the HTTP front listens (the placeholder gives the port back). */
  beforeListen: () => Promise<void>;
}

const RETRY_MS = 3000;

/** Starts the node and restarts it from the latest cluster snapshot each time its follower reports a gap. */
export async function serveRestoringOnGap<S extends RestartableServer>(input: SkeinOptions,
  start: (input: SkeinOptions, hooks: StartHooks) => Promise<S>): Promise<S> {
  const dbPath = resolveOptions(input).dbPath;
  let closed = false;
  let restoring: Promise<void> | null = null;
  let placeholder: Server | null = null;
  const hooks: StartHooks = {
    onClusterGap: (reason, log) => {
      if (closed || restoring) return;
      log(`${reason}: restoring the latest cluster snapshot`);
      restoring = restore(log).finally(() => { restoring = null; });
    },
    beforeListen: async () => {
      const server = placeholder;
      placeholder = null;
      if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  let current = await start(input, hooks);
  // Restarts listen where the first one did (a port 0 was resolved).
  const { host } = parseHttpAddr(current.address);
  const again: SkeinOptions = { ...input, httpAddr: current.address };

  async function restore(serverLog: (message: string) => void): Promise<void> {
    await current.close('a gap in the task log: restoring the latest cluster snapshot');
    // The closed server's logger is closed too.
    const log = (message: string) => console.error(`[cluster] ${message}`);
    void serverLog;
    placeholder = await listenPlaceholder(host, current.port).catch((cause) => {
      log(`the placeholder could not listen (${(cause as Error).message}); the port stays closed until the node is back`);
      return null;
    });
    const aside = moveAside(dbPath);
    while (!closed) {
      try {
        current = await start(again, hooks);
        // The payloads this node put in the Object Store are still to be deleted once purged (payload-ledger.ts).
        if (existsSync(join(aside, LEDGER_FILE))) copyFileSync(join(aside, LEDGER_FILE), join(dbPath, CARRIED_LEDGER_FILE));
        rmSync(aside, { recursive: true, force: true });
        log('restored from the latest cluster snapshot; catching up with the task log');
        return;
      } catch (cause) {
        log(`restoring failed (${(cause as Error).message}); retrying in ${RETRY_MS} ms`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  return {
    get address() { return current.address; },
    get port() { return current.port; },
    async close(reason?: string) {
      closed = true;
      await restoring;
      await hooks.beforeListen();
      await current.close(reason);
    },
  } as S;
}

/** Every entry of the data folder but its lock file, into a sibling folder; returns it. */
function moveAside(dbPath: string): string {
  const aside = join(dirname(dbPath), `${basename(dbPath)}.gap-${Date.now()}`);
  mkdirSync(aside, { recursive: true });
  for (const name of readdirSync(dbPath)) {
    if (name === LOCK_FILE_NAME || name.startsWith(`${LOCK_FILE_NAME}.`)) continue;
    renameSync(join(dbPath, name), join(aside, name));
  }
  return aside;
}

function listenPlaceholder(host: string, port: number): Promise<Server> {
  const body = JSON.stringify(new SkeinError('cluster_node_restoring',
    'This node is restoring the latest cluster snapshot: the task log was compacted past what it had applied. It answers again once restored.').toBody());
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'access-control-allow-origin': '*' });
    response.end(body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
