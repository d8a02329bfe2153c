// kill -9 loop (issue 18): the CLI as a child process, writes of known content under search load,
// SIGKILL at a random moment, restart on the same db-path, then check against a model:
// - every uid answered (202) before the kill still exists with its type and index (uids never lost
//   nor reused); a task seen `succeeded` before the kill is still `succeeded`;
// - at most one unknown task per index (the write in flight at the kill), whose type matches it;
// - once the queue drains, no task failed, and each index's documents equal the model computed from
//   the succeeded tasks in uid order (so no partial batch: a task's documents are all there or none,
//   and `processing` tasks were re-run); its searchable attributes equal the last succeeded settings task;
//   a placeholder search and a facet count agree with the model (shards rebuilt from snapshots or LMDB);
// - new uids continue above every uid before the kill;
// - under load and right after each restart, documents read between two task listings that show no
//   task finishing in between equal the model plus the tasks succeeded by then (no partial batch is
//   ever visible, not even before a re-run would complete it).
// Used by test/http/kill-loop.test.ts (a few kills) and `npm run killloop -- --kills 200`.
import { deriveSeed, SeededRandom } from '../../bench/seeded-random.js';
import { CLI_PATH, Client, FINISHED, freePort, sleep, spawnServerProcess, stopChild, type ChildServer } from '../http/harness.js';

export const KILL_INDEXES = ['kl_a', 'kl_b'];
const ID_SPACE = 400;
const WORDS = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'heron', 'iris', 'juniper', 'kestrel', 'lichen', 'maple', 'nectar', 'orchid', 'pine'];
const SEARCHABLE_CHOICES: string[][] = [['t'], ['t', 'u'], ['*'], ['u', 't', 'g']];

type Doc = Record<string, unknown> & { id: number };

export type Operation =
  | { kind: 'add'; documents: Doc[] }
  | { kind: 'update'; documents: Doc[] }
  | { kind: 'deleteIds'; ids: number[] }
  | { kind: 'deleteFilter'; g: number }
  | { kind: 'deleteAll' }
  | { kind: 'settings'; searchableAttributes: string[] };

const TASK_TYPE: Record<Operation['kind'], string> = {
  add: 'documentAdditionOrUpdate',
  update: 'documentAdditionOrUpdate',
  deleteIds: 'documentDeletion',
  deleteFilter: 'documentDeletion',
  deleteAll: 'documentDeletion',
  settings: 'settingsUpdate',
};

function distinctIds(rng: SeededRandom, count: number): number[] {
  const ids = new Set<number>();
  while (ids.size < count) ids.add(rng.int(0, ID_SPACE - 1));
  return [...ids];
}

/** Operation number `n` of an index: its content depends only on (seed, index, n). */
export function operationAt(seed: number, index: string, n: number): Operation {
  const rng = new SeededRandom(deriveSeed(seed, index, n));
  const roll = rng.next();
  if (roll < 0.5) {
    return {
      kind: 'add',
      documents: distinctIds(rng, rng.int(1, 60)).map((id) => ({
        id,
        g: rng.int(0, 4),
        v: n,
        t: Array.from({ length: rng.int(3, 25) }, () => rng.pick(WORDS)).join(' '),
        ...(rng.chance(0.3) ? { nested: { n, list: [n, id] } } : {}),
      })),
    };
  }
  if (roll < 0.72) return { kind: 'update', documents: distinctIds(rng, rng.int(1, 40)).map((id) => ({ id, u: `${rng.pick(WORDS)} ${n}` })) };
  if (roll < 0.87) return { kind: 'deleteIds', ids: distinctIds(rng, rng.int(1, 30)) };
  if (roll < 0.92) return { kind: 'deleteFilter', g: rng.int(0, 4) };
  if (roll < 0.93) return { kind: 'deleteAll' };
  return { kind: 'settings', searchableAttributes: rng.pick(SEARCHABLE_CHOICES) };
}

export function requestOf(index: string, operation: Operation): { method: string; path: string; body?: unknown } {
  switch (operation.kind) {
    case 'add': return { method: 'POST', path: `/indexes/${index}/documents`, body: operation.documents };
    case 'update': return { method: 'PUT', path: `/indexes/${index}/documents`, body: operation.documents };
    case 'deleteIds': return { method: 'POST', path: `/indexes/${index}/documents/delete-batch`, body: operation.ids };
    case 'deleteFilter': return { method: 'POST', path: `/indexes/${index}/documents/delete`, body: { filter: `g = ${operation.g}` } };
    case 'deleteAll': return { method: 'DELETE', path: `/indexes/${index}/documents` };
    case 'settings': return { method: 'PATCH', path: `/indexes/${index}/settings`, body: { searchableAttributes: operation.searchableAttributes } };
  }
}

/** The documents and settings an index must hold after its succeeded operations, in uid order. */
export class IndexModel {
  documents = new Map<number, Doc>();
  searchableAttributes: string[] = ['*'];

  apply(operation: Operation): void {
    switch (operation.kind) {
      case 'add':
        for (const document of operation.documents) this.documents.set(document.id, structuredClone(document));
        break;
      case 'update':
        for (const document of operation.documents) this.documents.set(document.id, { ...(this.documents.get(document.id) ?? {}), ...structuredClone(document) });
        break;
      case 'deleteIds':
        for (const id of operation.ids) this.documents.delete(id);
        break;
      case 'deleteFilter':
        for (const [id, document] of this.documents) if (document.g === operation.g) this.documents.delete(id);
        break;
      case 'deleteAll':
        this.documents.clear();
        break;
      case 'settings':
        this.searchableAttributes = operation.searchableAttributes;
        break;
    }
  }
}

/** What the loop knows of one index's writes. */
interface IndexState {
  model: IndexModel;
  /** Operations answered with a uid and not yet verified, by uid. */
  answered: Map<number, { n: number; type: string }>;
  /** Operation numbers sent whose answer was lost (at most one: the writer is sequential). */
  inFlight: number | null;
  nextOperation: number;
}

export interface KillLoopOptions {
  seed: number;
  kills: number;
  /** Stop starting new cycles after this long (the run then reports how many kills it got through). */
  maxMs: number;
  /** Random delay between the load's start and the kill. */
  killAfterMs?: [number, number];
  workers?: number;
  shardsPerIndex?: number;
  log?: (line: string) => void;
  dbPath: string;
}

export interface KillLoopReport {
  seed: number;
  kills: number;
  cycles: number;
  writesAnswered: number;
  tasksVerified: number;
  searches: number;
  /** Tasks not finished when first listed after a restart (enqueued or processing at the kill). */
  unfinishedAtRestart: number;
  /** Consistent snapshots checked against the model while tasks were still running (no task finished during the read). */
  snapshotChecks: number;
  /** Tasks whose 202 was lost at the kill but which exist after the restart. */
  inFlightRecovered: number;
  failures: string[];
  elapsedMs: number;
}

async function json(client: Client, method: string, path: string, body?: unknown): Promise<any> {
  const response = await client.request(method, path, body === undefined ? {} : { body });
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${response.text.slice(0, 500)}`);
  return response.body;
}

/** Every task of `index` with a uid above `after`, oldest first. */
async function tasksAbove(client: Client, index: string, after: number): Promise<any[]> {
  const tasks: any[] = [];
  let from: number | null = null;
  for (;;) {
    const page = await json(client, 'GET', `/tasks?indexUids=${index}&limit=500${from === null ? '' : `&from=${from}`}`);
    for (const task of page.results) {
      if (task.uid <= after) return tasks.reverse();
      tasks.push(task);
    }
    if (page.next === null || page.next === undefined) return tasks.reverse();
    from = page.next;
  }
}

async function waitForIdle(client: Client, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await json(client, 'GET', '/tasks?statuses=enqueued,processing&limit=1');
    if (page.total === 0) return;
    if (Date.now() > deadline) throw new Error(`the queue did not drain within ${timeoutMs} ms: ${page.total} tasks left`);
    await sleep(50);
  }
}

function sortedDocuments(documents: Iterable<Doc>): Doc[] {
  return [...documents].sort((a, b) => a.id - b.id);
}

function firstDifference(actual: Doc[], expected: Doc[]): string {
  const actualById = new Map(actual.map((document) => [document.id, document]));
  const expectedById = new Map(expected.map((document) => [document.id, document]));
  const lines: string[] = [`${actual.length} documents, model ${expected.length}`];
  for (const [id, document] of expectedById) {
    const found = actualById.get(id);
    if (found === undefined) lines.push(`missing ${JSON.stringify(document)}`);
    else if (JSON.stringify(found) !== JSON.stringify(document)) lines.push(`id ${id}: ${JSON.stringify(found)} instead of ${JSON.stringify(document)}`);
    if (lines.length > 6) break;
  }
  for (const [id, document] of actualById) {
    if (!expectedById.has(id)) lines.push(`unexpected ${JSON.stringify(document)}`);
    if (lines.length > 10) break;
  }
  return lines.join('; ');
}

/** Canonical JSON (sorted keys), for comparing documents whatever their key order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
  }
  return value;
}

export async function runKillLoop(options: KillLoopOptions): Promise<KillLoopReport> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const rng = new SeededRandom(deriveSeed(options.seed, 'kills'));
  const [minDelay, maxDelay] = options.killAfterMs ?? [150, 2500];
  const report: KillLoopReport = { seed: options.seed, kills: 0, cycles: 0, writesAnswered: 0, tasksVerified: 0, searches: 0, unfinishedAtRestart: 0, inFlightRecovered: 0, snapshotChecks: 0, failures: [], elapsedMs: 0 };
  const states = new Map<string, IndexState>(KILL_INDEXES.map((index) => [index, { model: new IndexModel(), answered: new Map(), inFlight: null, nextOperation: 0 }]));
  /**
   * The documents of `index` read while tasks may run, between two listings of its tasks: when no task
   * finished in between, they must equal the model plus the tasks succeeded by then, in uid order — so a
   * batch is never visible in part, even before a later re-run could complete it. Returns false when the
   * read raced a commit (nothing to conclude); a mismatch is a failure.
   */
  const snapshotCheck = async (client: Client, index: string, prefix: string): Promise<boolean> => {
    const state = states.get(index)!;
    const before = await tasksAbove(client, index, verifiedUpTo);
    const documents = await json(client, 'GET', `/indexes/${index}/documents?limit=100000`);
    const after = await tasksAbove(client, index, verifiedUpTo);
    const finished = (tasks: any[]) => tasks.filter((task) => FINISHED.has(task.status)).map((task) => `${task.uid}:${task.status}`).join(',');
    if (finished(before) !== finished(after)) return false;
    const model = new IndexModel();
    for (const [id, document] of state.model.documents) model.documents.set(id, document);
    for (const task of before) {
      if (task.status !== 'succeeded') continue;
      const answered = state.answered.get(task.uid);
      if (answered === undefined) return false; // its 202 is still on its way (or was lost): content unknown here
      model.apply(operationAt(options.seed, index, answered.n));
    }
    const actual = sortedDocuments(documents.results).map((document) => canonical(document) as Doc);
    const expected = sortedDocuments(model.documents.values()).map((document) => canonical(document) as Doc);
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      report.failures.push(`${prefix}: ${index}'s documents, read while tasks ran (${before.map((task) => `${task.uid}:${task.status}`).join(' ')}), differ from the succeeded tasks: ${firstDifference(actual, expected)}`);
    }
    report.snapshotChecks++;
    return true;
  };
  /** The highest uid verified so far (every task at or below it is finished and in the model). */
  let verifiedUpTo = -1;
  let maxUidSeen = -1;
  const uidsAnswered = new Set<number>();
  const args = (port: number) => [
    '--db-path', options.dbPath, '--http-addr', `127.0.0.1:${port}`,
    '--workers', String(options.workers ?? 1), '--shards-per-index', String(options.shardsPerIndex ?? 2),
  ];
  let port = await freePort();
  let server: ChildServer = await spawnServerProcess(CLI_PATH, args(port), port, 60_000);
  try {
    for (const index of KILL_INDEXES) {
      await server.client.createIndex(index, 'id');
      await server.client.run('PATCH', `/indexes/${index}/settings`, { body: { filterableAttributes: ['g', 'id'], sortableAttributes: ['v'] } });
    }
    verifiedUpTo = (await json(server.client, 'GET', '/tasks?limit=1')).results[0].uid;
    maxUidSeen = verifiedUpTo;

    while (report.kills < options.kills && Date.now() - started < options.maxMs && report.failures.length === 0) {
      report.cycles++;
      const client = server.client;
      let stop = false;
      // Writers: one sequential writer per index, so at most one answer per index is lost at the kill.
      const writer = async (index: string) => {
        const state = states.get(index)!;
        while (!stop) {
          const n = state.nextOperation;
          const operation = operationAt(options.seed, index, n);
          const request = requestOf(index, operation);
          state.inFlight = n;
          state.nextOperation++;
          let response;
          try {
            response = await client.request(request.method, request.path, request.body === undefined ? {} : { body: request.body });
          } catch {
            return; // killed while in flight: its task may or may not exist
          }
          state.inFlight = null;
          if (response.status !== 202) {
            report.failures.push(`cycle ${report.cycles}: ${request.method} ${request.path} answered ${response.status}: ${response.text.slice(0, 300)}`);
            return;
          }
          const uid = response.body.taskUid as number;
          // Two writers: answers may cross, so a lower uid can arrive after a higher one; reuse is a uid
          // answered twice, or one not above everything verified before this cycle's start.
          if (uidsAnswered.has(uid) || uid <= verifiedUpTo) report.failures.push(`cycle ${report.cycles}: uid ${uid} reused (verified up to ${verifiedUpTo})`);
          uidsAnswered.add(uid);
          maxUidSeen = Math.max(maxUidSeen, uid);
          state.answered.set(uid, { n, type: TASK_TYPE[operation.kind] });
          report.writesAnswered++;
          if (rng.chance(0.3)) await sleep(rng.int(0, 20));
        }
      };
      const seenSucceeded = new Map<number, any>();
      const watcher = async () => {
        let round = 0;
        while (!stop) {
          try {
            const page = await json(client, 'GET', `/tasks?statuses=succeeded&limit=200`);
            for (const task of page.results) if (task.uid > verifiedUpTo) seenSucceeded.set(task.uid, task);
            if (round++ % 4 === 0) await snapshotCheck(client, KILL_INDEXES[round % KILL_INDEXES.length], `cycle ${report.cycles} under load (seed ${options.seed})`);
          } catch {
            return;
          }
          await sleep(30);
        }
      };
      const searcher = async (which: number) => {
        const searchRng = new SeededRandom(deriveSeed(options.seed, report.cycles, which));
        while (!stop) {
          const index = searchRng.pick(KILL_INDEXES);
          const body: Record<string, unknown> = { q: searchRng.chance(0.7) ? searchRng.pick(WORDS) : '', limit: 20 };
          if (searchRng.chance(0.4)) body.filter = `g = ${searchRng.int(0, 4)} OR id < ${searchRng.int(0, ID_SPACE)}`;
          if (searchRng.chance(0.3)) body.facets = ['g'];
          if (searchRng.chance(0.2)) body.sort = ['v:desc'];
          try {
            const response = await client.post(`/indexes/${index}/search`, body);
            report.searches++;
            if (response.status >= 500) report.failures.push(`cycle ${report.cycles}: search ${JSON.stringify(body)} answered ${response.status}: ${response.text.slice(0, 300)}`);
          } catch {
            return;
          }
        }
      };
      const load = Promise.all([...KILL_INDEXES.map(writer), watcher(), searcher(0), searcher(1)]);
      // The kill lands at a random moment after the load is under way (the first write answered).
      const answeredBefore = report.writesAnswered;
      for (let waited = 0; report.writesAnswered === answeredBefore && waited < 5000; waited += 20) await sleep(20);
      await sleep(rng.int(minDelay, maxDelay));
      await stopChild(server, 'SIGKILL');
      report.kills++;
      stop = true;
      await load;

      port = await freePort();
      server = await spawnServerProcess(CLI_PATH, args(port), port, 60_000);
      await verify(server.client);
      log(`kill ${report.kills}: ${report.writesAnswered} writes answered, ${report.tasksVerified} tasks verified (${report.unfinishedAtRestart} unfinished at a restart, ${report.inFlightRecovered} whose answer the kill lost, ${report.snapshotChecks} snapshots), ${report.searches} searches, documents ${KILL_INDEXES.map((index) => states.get(index)!.model.documents.size).join('/')}, ${((Date.now() - started) / 1000).toFixed(0)} s`);

      async function verify(after: Client): Promise<void> {
        const prefix = `kill ${report.kills} (seed ${options.seed})`;
        // Right after the restart, before any new write: what the kill left.
        const unknown = new Map<string, any>();
        for (const index of KILL_INDEXES) {
          const state = states.get(index)!;
          const tasks = await tasksAbove(after, index, verifiedUpTo);
          const byUid = new Map(tasks.map((task) => [task.uid, task]));
          report.unfinishedAtRestart += tasks.filter((task) => !FINISHED.has(task.status)).length;
          for (const [uid, answered] of state.answered) {
            const task = byUid.get(uid);
            if (task === undefined) report.failures.push(`${prefix}: task ${uid} (${answered.type} on ${index}) was answered 202 but is gone after the restart`);
            else if (task.type !== answered.type) report.failures.push(`${prefix}: task ${uid} is ${task.type} after the restart, was ${answered.type} (uid reused?)`);
          }
          for (const task of tasks) {
            if (state.answered.has(task.uid)) continue;
            if (state.inFlight === null || unknown.has(index)) {
              report.failures.push(`${prefix}: task ${task.uid} on ${index} (${task.type}, ${task.status}) was never sent by the loop`);
              continue;
            }
            const operation = operationAt(options.seed, index, state.inFlight);
            if (task.type !== TASK_TYPE[operation.kind]) report.failures.push(`${prefix}: task ${task.uid} on ${index} is ${task.type}, the write in flight was ${TASK_TYPE[operation.kind]}`);
            if (task.uid <= Math.max(...state.answered.keys(), verifiedUpTo)) report.failures.push(`${prefix}: the in-flight task ${task.uid} has a uid below an answered one`);
            unknown.set(index, task);
            report.inFlightRecovered++;
            state.answered.set(task.uid, { n: state.inFlight, type: task.type });
            maxUidSeen = Math.max(maxUidSeen, task.uid);
          }
          for (const [uid, before] of seenSucceeded) {
            if (before.indexUid !== index) continue;
            const task = byUid.get(uid);
            if (task?.status !== 'succeeded') report.failures.push(`${prefix}: task ${uid} was succeeded before the kill, is ${task?.status ?? 'gone'} after`);
            else if (JSON.stringify(task.details) !== JSON.stringify(before.details)) report.failures.push(`${prefix}: task ${uid}'s details changed across the kill: ${JSON.stringify(before.details)} -> ${JSON.stringify(task.details)}`);
          }
        }
        // Right after the restart, the scheduler re-runs what was enqueued or processing: documents read
        // meanwhile show only whole tasks.
        for (const index of KILL_INDEXES) await snapshotCheck(after, index, prefix);
        await waitForIdle(after, 120_000);
        let highest = verifiedUpTo;
        for (const index of KILL_INDEXES) {
          const state = states.get(index)!;
          const tasks = await tasksAbove(after, index, verifiedUpTo);
          for (const task of tasks) {
            highest = Math.max(highest, task.uid);
            const answered = state.answered.get(task.uid);
            if (answered === undefined) {
              report.failures.push(`${prefix}: task ${task.uid} on ${index} appeared after the restart`);
              continue;
            }
            if (!FINISHED.has(task.status)) report.failures.push(`${prefix}: task ${task.uid} is ${task.status} after the queue drained`);
            if (task.status === 'failed' || task.status === 'canceled') {
              report.failures.push(`${prefix}: task ${task.uid} (${task.type} on ${index}) ${task.status}: ${JSON.stringify(task.error)}`);
              continue;
            }
            state.model.apply(operationAt(options.seed, index, answered.n));
            report.tasksVerified++;
          }
          state.answered.clear();
          state.inFlight = null;
          const documents = await json(after, 'GET', `/indexes/${index}/documents?limit=100000`);
          const actual = sortedDocuments(documents.results).map((document) => canonical(document) as Doc);
          const expected = sortedDocuments(state.model.documents.values()).map((document) => canonical(document) as Doc);
          if (JSON.stringify(actual) !== JSON.stringify(expected)) report.failures.push(`${prefix}: ${index}'s documents differ from the model: ${firstDifference(actual, expected)}`);
          const searchable = await json(after, 'GET', `/indexes/${index}/settings/searchable-attributes`);
          if (JSON.stringify(searchable) !== JSON.stringify(state.model.searchableAttributes)) report.failures.push(`${prefix}: ${index}'s searchable attributes are ${JSON.stringify(searchable)}, model ${JSON.stringify(state.model.searchableAttributes)}`);
          // The shards (restored from snapshots or rebuilt from LMDB) agree with the documents.
          const search = await json(after, 'POST', `/indexes/${index}/search`, { q: '', limit: 0, facets: ['g'], page: 1, hitsPerPage: 0 });
          if (search.totalHits !== state.model.documents.size) report.failures.push(`${prefix}: ${index}: a placeholder search counts ${search.totalHits} documents, model ${state.model.documents.size}`);
          const counts: Record<string, number> = {};
          for (const document of state.model.documents.values()) if (document.g !== undefined) counts[String(document.g)] = (counts[String(document.g)] ?? 0) + 1;
          const distribution = search.facetDistribution?.g ?? {};
          if (JSON.stringify(canonical(distribution)) !== JSON.stringify(canonical(counts))) report.failures.push(`${prefix}: ${index}: facet counts of g ${JSON.stringify(distribution)}, model ${JSON.stringify(counts)}`);
          const word = WORDS[report.kills % WORDS.length];
          const expectedWithWord = [...state.model.documents.values()].filter((document) => String(document.t ?? '').split(' ').includes(word) && state.model.searchableAttributes.some((attribute) => attribute === '*' || attribute === 't')).length;
          const wordSearch = await json(after, 'POST', `/indexes/${index}/search`, { q: word, page: 1, hitsPerPage: 0, matchingStrategy: 'all' });
          // The word may also be found in `u` (update text), so the count is at least the model's `t` count.
          if (wordSearch.totalHits < expectedWithWord) report.failures.push(`${prefix}: ${index}: "${word}" finds ${wordSearch.totalHits} documents, the model has ${expectedWithWord} with it in t`);
        }
        // New uids continue above everything before the kill.
        const probe = await json(after, 'POST', '/indexes', { uid: 'kl_probe' });
        if (probe.taskUid <= Math.max(highest, maxUidSeen)) report.failures.push(`${prefix}: a new task got uid ${probe.taskUid}, not above ${Math.max(highest, maxUidSeen)}`);
        await after.waitForTask(probe.taskUid, 60_000);
        verifiedUpTo = probe.taskUid;
        maxUidSeen = probe.taskUid;
        seenSucceeded.clear();
      }
    }
  } catch (cause) {
    report.failures.push(`kill ${report.kills} (seed ${options.seed}): ${(cause as Error).stack ?? cause}\n${server.output().slice(-3000)}`);
  } finally {
    await stopChild(server, 'SIGKILL');
  }
  report.elapsedMs = Date.now() - started;
  return report;
}
