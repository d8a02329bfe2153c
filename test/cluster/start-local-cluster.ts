// `npm run cluster:local [-- --size N --root DIR --workers N]`: a development cluster on 127.0.0.1 (N
// nats-server and N Skein processes, test/cluster/local-cluster.ts), printed, stopped with Ctrl-C.
import { LocalCluster } from './local-cluster.js';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const size = Number(flag('size') ?? 3);
const root = flag('root');
const cluster = new LocalCluster({ size, workers: Number(flag('workers') ?? 1), echo: true, ...(root ? { root } : {}) });
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.error('stopping the local cluster...');
  await cluster.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
await cluster.start();
console.log(`NATS:  ${cluster.natsUrls}`);
for (const node of cluster.nodes) console.log(`Skein: ${node.name} ${node.url} (data ${node.dbPath})`);
console.log(`folder ${cluster.root}${root ? '' : ' (removed at exit)'}; Ctrl-C stops everything`);
