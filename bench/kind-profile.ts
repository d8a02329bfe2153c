// A CPU profile of one ShardEngine answering the real-text workload's unique queries (bench/workloads/npm.json),
// cut by query kind: the list is answered in its order (warm-up: the first `warm` queries), then each
// kind's next `perKind` queries of the list are profiled alone (V8's sampling profiler, 100 µs) and
// printed: CPU µs per query, the time under a few named frames (inclusive) and the functions with the
// most self time. In-process, no threads and no HTTP: the shard worker's share of a search.
//   node dist/bench/kind-profile.js [documents=100000] [warm=20000] [perKind=3000] [top=15] [frames=a,b,...]
import { Session, type Profiler } from 'node:inspector';
import { fileURLToPath } from 'node:url';
import { ShardEngine, type JsonDocument } from '../src/shard/shard-engine.js';
import { createNpmDataset } from './npm-dataset.js';
import { buildRealQueries, realQueryKinds } from './npm-queries.js';
import { applyOverrides, loadWorkloadFile, workloadPath } from './workload.js';

const [documentsArg = '100000', warmArg = '20000', perKindArg = '3000', topArg = '15', framesArg] = process.argv.slice(2);
const frames = (framesArg ?? 'ngramAlternatives,deriveWordIds,walkFuzzy,walkFirstLetterEdits,derivationsFromWords,unionOfMany,bestSplit,phraseDocs,withAlternatives,matchWord,scoreDocuments,visitScoreChainGroups,(garbage collector)').split(',');
const workloadsDirectory = fileURLToPath(new URL('../../bench/workloads', import.meta.url));
const workload = applyOverrides(loadWorkloadFile(workloadPath('npm', workloadsDirectory)), { documents: Number(documentsArg) });
const dataset = createNpmDataset(workload.dataset as never);
const queries = buildRealQueries(dataset, workload.queries as never);
const warm = Number(warmArg);
const perKind = Number(perKindArg);

function* documents(): Generator<[number, JsonDocument]> {
  for (let seq = 0; seq < dataset.spec.documents; seq++) yield [seq, dataset.documentAt(seq) as JsonDocument];
}
const engine = new ShardEngine(0, 1);
engine.loadIndex('npm', 1, workload.index.settings, documents());
engine.prepareForSearch();
const search = (q: string) => engine.search({ indexUid: 'npm', shards: [0], q, hitsWanted: workload.queries.limit, matchingStrategy: 'last', options: {} });
for (const query of queries.slice(0, warm)) search(query.q);

const session = new Session();
session.connect();
const post = <T>(method: string, params?: object) => new Promise<T>((resolve, reject) =>
  session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T))));
await post('Profiler.enable');
await post('Profiler.setSamplingInterval', { interval: 100 });

const rest = queries.slice(warm);
const kinds = process.env.KINDS?.split(',') ?? [...realQueryKinds];
for (const kind of kinds) {
  const mine = rest.filter((query) => query.kind === kind).slice(0, perKind);
  if (process.env.HEAP !== undefined) {
    // HEAP=1: bytes allocated by function (V8's sampling heap profiler, garbage included), not CPU.
    await post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    for (const query of mine) search(query.q);
    const { profile } = await post<{ profile: { head: HeapNode } }>('HeapProfiler.stopSampling');
    reportHeap(kind, mine.length, profile.head);
    continue;
  }
  await post('Profiler.start');
  const before = process.cpuUsage();
  for (const query of mine) search(query.q);
  const used = process.cpuUsage(before);
  const { profile } = await post<{ profile: Profiler.Profile }>('Profiler.stop');
  report(kind, mine.length, (used.user + used.system) / mine.length, profile);
}

function report(kind: string, count: number, cpuPerQuery: number, profile: Profiler.Profile): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const name = (node: Profiler.ProfileNode) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const under = process.env.UNDER;
  const onStack = (id: number) => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) if (byId.get(at)!.callFrame.functionName === under) return true;
    return false;
  };
  // UNDER=frame: only the samples with that frame on their stack.
  const samples = (profile.samples ?? []).filter((id) => under === undefined || onStack(id));
  const busy = samples.filter((id) => byId.get(id)!.callFrame.functionName !== '(idle)').length;
  for (const id of samples) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    self.set(name(node), (self.get(name(node)) ?? 0) + 1);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame.functionName;
      if (frames.includes(frame) && !seen.has(frame)) {
        seen.add(frame);
        inclusive.set(frame, (inclusive.get(frame) ?? 0) + 1);
      }
    }
  }
  const share = (n: number) => `${(n / busy * 100).toFixed(1).padStart(5)}%`;
  console.log(`\n== ${kind}: ${count} queries, ${cpuPerQuery.toFixed(0)} µs CPU per query (${busy} samples)`);
  console.log('  inclusive: ' + frames.filter((frame) => inclusive.has(frame)).map((frame) => `${frame} ${share(inclusive.get(frame)!).trim()}`).join(', '));
  for (const [fn, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))) console.log(`  ${share(n)}  ${fn}`);
  // CALLERS=name: who calls the functions of that name (self time by calling frame).
  const callersOf = process.env.CALLERS;
  if (callersOf !== undefined) {
    const callers = new Map<string, number>();
    for (const id of samples) {
      const node = byId.get(id)!;
      if (node.callFrame.functionName !== callersOf) continue;
      const caller = parent.get(id);
      const key = caller === undefined ? '(none)' : name(byId.get(caller)!);
      callers.set(key, (callers.get(key) ?? 0) + 1);
    }
    for (const [fn, n] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`    ${callersOf} <- ${share(n)}  ${fn}`);
  }
}

interface HeapNode { callFrame: Profiler.ProfileNode['callFrame']; selfSize: number; children: HeapNode[] }

function reportHeap(kind: string, count: number, head: HeapNode): void {
  const self = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, caller: string) => {
    const frame = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
    if (node.selfSize > 0) {
      const key = `${frame} <- ${caller}`;
      self.set(key, (self.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child, frame);
  };
  walk(head, '');
  console.log(`\n== ${kind}: ${count} queries, ~${(total / count / 1024).toFixed(1)} KiB allocated per query (sampled)`);
  for (const [fn, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))) console.log(`  ${(bytes / total * 100).toFixed(1).padStart(5)}%  ${(bytes / count).toFixed(0).padStart(6)} B/query  ${fn}`);
}
