// A local Skein cluster on 127.0.0.1 for tests and development: N nats-server processes (JetStream on,
// clustered) and N Skein processes (`skein --cluster-nats-urls ...`), each on a free port, each in its
// own temporary folder. Every process is a child of this one: stop() (or this process's exit) ends them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CLI_PATH = join(REPO_ROOT, 'dist/src/cli.js');

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

export interface NatsServer {
  name: string;
  clientPort: number;
  routePort: number;
  url: string;
  process: ChildProcess | null;
  storeDir: string;
  configPath: string;
}

export interface SkeinNode {
  name: string;
  dbPath: string;
  process: ChildProcess | null;
  port: number;
  url: string;
  /** stderr lines, for a failing test's message. */
  output: string[];
}

export interface LocalClusterOptions {
  size?: number;
  /** Folder of everything (default: a new temporary folder, removed by stop()). */
  root?: string;
  /** Shard workers per Skein node (default 1: the machine has 2 cores). */
  workers?: number;
  /** Extra launch flags for every Skein node. */
  skeinArgs?: string[];
  /** Where the processes' output goes besides the kept lines: 'inherit' for the command line. */
  echo?: boolean;
}

export class LocalCluster {
  readonly nats: NatsServer[] = [];
  readonly nodes: SkeinNode[] = [];
  private readonly ownsRoot: boolean;
  readonly root: string;

  constructor(private readonly options: LocalClusterOptions = {}) {
    this.ownsRoot = options.root === undefined;
    this.root = options.root ?? mkdtempSync(join(tmpdir(), 'skein-cluster-'));
    // A test worker that ends (timeout, crash) without stop() leaves no nats-server or Skein behind.
    process.once('exit', this.killAllNow);
  }

  private readonly killAllNow = (): void => {
    for (const child of [...this.nodes.map((node) => node.process), ...this.nats.map((server) => server.process)]) {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  };

  get natsUrls(): string {
    return this.nats.map((server) => server.url).join(',');
  }

  async start(): Promise<void> {
    const size = this.options.size ?? 3;
    try {
      // Distinct ports: two freePort() calls may hand out the same free port (a nats-server then exits at start).
      const taken = new Set<number>();
      const distinctPort = async (): Promise<number> => {
        for (;;) {
          const port = await freePort();
          if (!taken.has(port)) return taken.add(port), port;
        }
      };
      for (let i = 0; i < size; i++) {
        const name = `nats${i + 1}`;
        const clientPort = await distinctPort();
        const routePort = await distinctPort();
        const storeDir = join(this.root, name);
        mkdirSync(storeDir, { recursive: true });
        this.nats.push({ name, clientPort, routePort, url: `nats://127.0.0.1:${clientPort}`, process: null, storeDir, configPath: join(this.root, `${name}.conf`) });
      }
      for (const server of this.nats) this.writeNatsConfig(server);
      await Promise.all(this.nats.map((server) => this.startNats(server)));
      for (let i = 0; i < size; i++) {
        const name = `skein${i + 1}`;
        this.nodes.push({ name, dbPath: join(this.root, name), process: null, port: 0, url: '', output: [] });
      }
      await Promise.all(this.nodes.map((node) => this.startNode(node)));
    } catch (cause) {
      await this.stop();
      throw cause;
    }
  }

  private writeNatsConfig(server: NatsServer): void {
    const routes = this.nats.filter((other) => other !== server).map((other) => `"nats-route://127.0.0.1:${other.routePort}"`);
    writeFileSync(server.configPath, [
      `server_name: ${server.name}`,
      `listen: "127.0.0.1:${server.clientPort}"`,
      `jetstream { store_dir: "${server.storeDir}" }`,
      `cluster { name: skein, listen: "127.0.0.1:${server.routePort}", routes: [${routes.join(', ')}] }`,
      '',
    ].join('\n'));
  }

  /** Starts (or restarts) a NATS server; resolves once it accepts clients. */
  async startNats(server: NatsServer): Promise<void> {
    const child = spawn('nats-server', ['-c', server.configPath], { stdio: ['ignore', 'ignore', this.options.echo ? 'inherit' : 'pipe'] });
    server.process = child;
    // Its last words, for the error when it exits at start (a port taken, a bad store).
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-2000); });
    await waitForPort(server.clientPort, 15_000, child, () => stderr);
  }

  /** kill -9 */
  killNats(index: number): void {
    this.nats[index]!.process?.kill('SIGKILL');
    this.nats[index]!.process = null;
  }

  /** Starts (or restarts) a Skein node; resolves once it listens. */
  async startNode(node: SkeinNode, extraArgs: string[] = []): Promise<void> {
    const port = node.port || await freePort();
    const args = [CLI_PATH, '--db-path', node.dbPath, '--http-addr', `127.0.0.1:${port}`, '--workers', String(this.options.workers ?? 1),
      '--snapshot-dir', join(node.dbPath, 'snapshots-out'), '--dump-dir', join(node.dbPath, 'dumps'),
      '--cluster-nats-urls', this.natsUrls, '--cluster-node-name', node.name, '--log-level', 'warn',
      // The nodes are each other's /network remotes on loopback.
      '--experimental-allowed-ip-networks', '127.0.0.0/8', ...(this.options.skeinArgs ?? []), ...extraArgs];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    node.process = child;
    node.port = port;
    node.url = `http://127.0.0.1:${port}`;
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      if (this.options.echo) process.stderr.write(`[${node.name}] ${chunk}`);
      node.output.push(...chunk.split('\n').filter(Boolean));
      if (node.output.length > 200) node.output.splice(0, node.output.length - 200);
    });
    await waitForHealth(node.url, 30_000, child, () => node.output.join('\n'));
  }

  /** A new Skein node joining the running cluster with an empty data folder. */
  async addNode(): Promise<SkeinNode> {
    const name = `skein${this.nodes.length + 1}`;
    const node: SkeinNode = { name, dbPath: join(this.root, name), process: null, port: 0, url: '', output: [] };
    this.nodes.push(node);
    await this.startNode(node);
    return node;
  }

  killNode(index: number): void {
    this.nodes[index]!.process?.kill('SIGKILL');
    this.nodes[index]!.process = null;
  }

  async stop(): Promise<void> {
    const exits: Promise<unknown>[] = [];
    for (const child of [...this.nodes.map((node) => node.process), ...this.nats.map((server) => server.process)]) {
      if (!child || child.exitCode !== null || child.signalCode !== null) continue;
      exits.push(new Promise((done) => child.once('exit', done)));
      child.kill('SIGKILL');
    }
    await Promise.race([Promise.all(exits), new Promise((done) => setTimeout(done, 5000))]);
    for (const node of this.nodes) node.process = null;
    for (const server of this.nats) server.process = null;
    process.removeListener('exit', this.killAllNow);
    if (this.ownsRoot) rmSync(this.root, { recursive: true, force: true });
  }
}

async function waitForPort(port: number, timeoutMs: number, child: ChildProcess, output: () => string = () => ''): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with code ${child.exitCode}: ${output().trim().slice(-600)}`);
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1', () => { socket.destroy(); done(true); });
      socket.on('error', () => done(false));
    });
    if (open) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
}

async function waitForHealth(url: string, timeoutMs: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`skein exited (${child.exitCode ?? child.signalCode}):\n${output()}`);
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${url} not healthy after ${timeoutMs} ms:\n${output()}`);
}
