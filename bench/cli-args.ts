// `npm run bench -- [WORKLOAD ...] [--all] [--docs N] [--duration S] ...`
import { parseArgs } from 'node:util';
import { validatePeers, type WorkloadOverrides } from './workload.js';

export interface BenchArgs {
  /** Workload names or paths; empty with `all` false means the default workload. */
  workloads: string[];
  all: boolean;
  overrides: WorkloadOverrides;
  keepFiles: boolean;
  /** Server entry point to run instead of dist/src/cli.js (same flags). */
  serverCli: string | null;
  /** Skein's --workers (shard worker threads); null keeps the server's default. */
  workers: number | null;
  /** Skein's --shards-per-index; null keeps the server's default (= workers). */
  shardsPerIndex: number | null;
  outputDirectory: string | null;
  help: boolean;
}

export const usage = `usage: npm run bench -- [WORKLOAD ...] [options]
  WORKLOAD            name in bench/workloads (default: npm, the real-text workload) or path to a workload .json
  --all               run every bench/workloads/*.json
  --docs N            override the number of documents
  --duration S        override the duration of each measured run (seconds)
  --warmup S          override the warm-up duration (seconds)
  --warmup-passes N   warm up until every query was sent N times too (workload default 1; 0: time only)
  --client NAME       what sends the measured runs: autocannon (default) or wrk (when installed: lighter,
                      overall latency only; the warm-up stays autocannon's)
  --connections N     override the number of concurrent connections
  --runs N            measured search runs per engine (figures are medians; workload default 3)
  --peers LIST        peers to run too: minisearch,flexsearch,orama,sqlite,ceiling, or none
                      (default: the workload's "peers"; all five for the npm workload)
  --windows N         real-text workloads: measured 10 s windows per engine (Skein and peers)
  --no-restart        skip the restart phase (restart Skein on its database, time its first search)
  --keep-files        keep the server's database and log (printed path)
  --workers N         Skein's shard worker threads (default: the server's, one per core but one)
  --shards-per-index N  Skein's shards per new index (default: the server's, = workers; fewer = replicas)
  --server-cli PATH   run this script instead of dist/src/cli.js (same --db-path/--http-addr flags)
  --out DIR           write results there instead of bench/results
  --help`;

function count(value: string | undefined, flag: string, allowZero = false): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < (allowZero ? 0 : 1)) throw new Error(`${flag} expects a ${allowZero ? 'non-negative' : 'positive'} integer, got "${value}"`);
  return number;
}

function parseClient(value: string | undefined): WorkloadOverrides['client'] {
  if (value === undefined) return undefined;
  if (value !== 'autocannon' && value !== 'wrk') throw new Error(`--client expects autocannon or wrk, got "${value}"`);
  return value;
}

function parsePeers(value: string | undefined): WorkloadOverrides['peers'] {
  if (value === undefined) return undefined;
  const peers = value === 'none' || value === '' ? [] : value.split(',').map((name) => name.trim());
  validatePeers(peers);
  return peers;
}

export function parseBenchArgs(argv: string[]): BenchArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      all: { type: 'boolean', default: false },
      docs: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      'warmup-passes': { type: 'string' },
      client: { type: 'string' },
      connections: { type: 'string' },
      runs: { type: 'string' },
      peers: { type: 'string' },
      windows: { type: 'string' },
      'keep-files': { type: 'boolean', default: false },
      // Node 20's parseArgs has no negated options: --no-restart is a flag of its own.
      'no-restart': { type: 'boolean', default: false },
      'server-cli': { type: 'string' },
      workers: { type: 'string' },
      'shards-per-index': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.all && positionals.length > 0) throw new Error('give either workload names or --all, not both');
  return {
    workloads: positionals,
    all: values.all ?? false,
    overrides: {
      documents: count(values.docs, '--docs'),
      durationSeconds: count(values.duration, '--duration'),
      warmupSeconds: count(values.warmup, '--warmup', true),
      warmupPasses: count(values['warmup-passes'], '--warmup-passes', true),
      client: parseClient(values.client),
      concurrency: count(values.connections, '--connections'),
      runs: count(values.runs, '--runs'),
      peers: parsePeers(values.peers),
      restart: values['no-restart'] ? false : undefined,
      windows: count(values.windows, '--windows'),
    },
    keepFiles: values['keep-files'] ?? false,
    serverCli: values['server-cli'] ?? null,
    workers: count(values.workers, '--workers') ?? null,
    shardsPerIndex: count(values['shards-per-index'], '--shards-per-index') ?? null,
    outputDirectory: values.out ?? null,
    help: values.help ?? false,
  };
}
