// A change of the shard groups (issue 23's rebalancing; Meilisearch's networkTopologyChange task), on
// the scheduler thread of every node, as the task log orders it. The task runs after every task
// before it and holds every task after it until it ends (as Meilisearch's does), one bounded step a
// batch: each step commits its documents and the move's progress (meta `networkMove`) in one LMDB
// transaction, then the task goes back to the queue, first in line, so a kill -9 resumes from the
// last step and enqueues are answered between steps.
//
// 1. import: a node fetches, one page a step, the documents it keeps under the new groups from one
//    node of each other old group (POST /indexes/{uid}/_network-move-export, src/network/move-routes.ts),
//    with their internal ids, so ties order as before; that node answers only once it reached this
//    task too (its documents are then the log's state just before it, on every node alike).
// 2. wait: a node that has documents to give away waits until every node of the new groups imported
//    (GET /_network-move/{taskUid}): a document is never missing from every group.
// 3. drop: it deletes, one page a step, the documents it no longer keeps; the new groups are recorded
//    (meta `networkPlacement`), and from then on decide where later additions go on this node.
// A useNetwork search reads every group at one version of the groups (storage/network-placement.ts:
// this task's uid from the drop step on), so a document is never missing; between its import and its
// source's drop it may count twice, Meilisearch's own window (its documents are exported, imported,
// then deleted at the source once every remote imported). README "Cluster" has the figures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keepsDocument, ownGroupIn, samePlacement, sourceGroups, type Placement } from '../../documents/shard-group.js';
import { SkeinError } from '../../errors/index.js';
import type { Storage } from '../../storage/environment.js';
import { NETWORK_MOVE as MOVE_STATE, NETWORK_PLACEMENT as PLACEMENT, NETWORK_PLACEMENT_UID as PLACEMENT_UID } from '../../storage/meta-keys.js';
import { readMoveState, readPlacement, type MoveState } from '../../storage/network-placement.js';
import { storageKeyOf } from '../../storage/records.js';
import type { TaskContent, TaskRecord } from '../../tasks/task-record.js';
import { succeededDetails } from '../../tasks/task-details.js';
import { emptyPlan, type BatchPlan } from '../batching/batch-plan.js';
import { StagedIndex } from '../batching/staged-index.js';
import { IpPolicy } from '../../network/ip-policy.js';
import { RemoteClient } from '../../network/remote-post.js';
import { applyDocumentDeletion, importDocument } from './document-operations.js';

/** Documents a step imports or drops (one LMDB transaction, one write batch per shard); SKEIN_MOVE_PAGE for tests. */
export const MOVE_PAGE = Number(process.env['SKEIN_MOVE_PAGE']) > 0 ? Number(process.env['SKEIN_MOVE_PAGE']) : 1000;
/** A node of the new groups unreachable this long fails the task (nothing lost: the documents stay where they were, some twice). */
const UNREACHABLE_LIMIT_MS = 60_000;
const POLL_MS = 250;
/** External ids a step reads at most when it looks for documents to drop. */
const SCAN_STEP = 20 * MOVE_PAGE;
/** A topology change's request to another node (a page of documents, a phase) ends within this. */
export const MOVE_REMOTE_TIMEOUT_MS = 10_000;

interface NetworkFile {
  self: string | null;
  remotes: Record<string, { url: string; searchApiKey: string | null }>;
}

/** The groups a node's documents were placed by before task `content` (the last change applied, else the publisher's). */
export function previousPlacement(storage: Pick<Storage, 'meta'>, content: Extract<TaskContent, { type: 'networkTopologyChange' }>): Placement {
  return readPlacement(storage) ?? content.previous ?? {};
}

/**
 * A document addition (or a deletion by a filter naming `_shard`) applied once a topology change was:
 * the recorded groups decide which documents this node keeps (not the publisher's configuration,
 * which may lag behind the log).
 */
export function placedAddition(storage: Pick<Storage, 'meta'>, content: TaskContent): TaskContent {
  if ((content.type !== 'documentAdditionOrUpdate' && content.type !== 'documentDeletion') || !('shardGroups' in content)
    || !content.shardGroups || content.shardGroups.self === undefined) return content;
  const placement = readPlacement(storage);
  if (placement === null) return content;
  const names = Object.keys(placement).sort();
  return { ...content, shardGroups: { names, own: names.length === 0 ? null : ownGroupIn(placement, content.shardGroups.self ?? null), self: content.shardGroups.self } };
}

function readNetworkFile(dbPath: string): NetworkFile {
  try {
    const value = JSON.parse(readFileSync(join(dbPath, 'network.json'), 'utf8')) as Partial<NetworkFile>;
    return { self: value.self ?? null, remotes: value.remotes ?? {} };
  } catch {
    return { self: null, remotes: {} };
  }
}

export interface MoveContext {
  storage: Storage;
  now: string;
  /** Sleeps between two polls (tests pass a shorter one). */
  sleep?: (ms: number) => Promise<void>;
  /** The scheduler's client to the other nodes (its address policy and bounds); absent: only global addresses. */
  remotes?: RemoteClient;
}

/** One step of the task; the plan `continues` until the last one, which succeeds or fails. */
export async function planNetworkMoveStep(task: TaskRecord, context: MoveContext): Promise<BatchPlan> {
  const plan = emptyPlan();
  const content = task.content as Extract<TaskContent, { type: 'networkTopologyChange' }>;
  const { storage } = context;
  const client = context.remotes ?? new RemoteClient(IpPolicy.fromList([]), MOVE_REMOTE_TIMEOUT_MS);
  if (!content.next) {
    plan.results.set(task.uid, { status: 'succeeded', details: task.details, error: null });
    return plan;
  }
  const previous = previousPlacement(storage, content);
  const next = content.next;
  const network = readNetworkFile(storage.dbPath);
  const self = network.self;
  const stored = readMoveState(storage);
  const state: MoveState = stored?.uid === task.uid ? stored
    : { uid: task.uid, phase: 'import', previous, next, index: 0, group: 0, after: null, imported: 0, moved: 0, unreachableSince: null };
  const finish = (): BatchPlan => {
    plan.meta = [[MOVE_STATE, null], [PLACEMENT, JSON.stringify(next)], [PLACEMENT_UID, String(task.uid)]];
    plan.results.set(task.uid, { status: 'succeeded', details: succeededDetails(task.details, { movedDocuments: state.moved }), error: null });
    return plan;
  };
  if (samePlacement(previous, next)) return finish();
  const indexes = [...storage.indexes.getKeys({})].map(String).sort();
  const sleep = context.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const step = (): BatchPlan => {
    plan.meta = [[MOVE_STATE, JSON.stringify(state)]];
    plan.continues = true;
    return plan;
  };
  const waitOrFail = async (who: string, cause: string): Promise<BatchPlan> => {
    const now = Date.now();
    state.unreachableSince ??= now;
    if (now - state.unreachableSince > UNREACHABLE_LIMIT_MS) {
      plan.meta = [[MOVE_STATE, null]];
      plan.results.set(task.uid, { status: 'failed', details: task.details, error: new SkeinError('remote_could_not_send_request',
        `The network topology change stopped: remote \`${who}\` did not answer for ${UNREACHABLE_LIMIT_MS / 1000} s (${cause}). No document was lost; documents it would have received stay with their previous group.`).toBody() });
      return plan;
    }
    await sleep(POLL_MS);
    return step();
  };

  if (state.phase === 'import') {
    const sources = sourceGroups(previous, next, self);
    const own = ownGroupIn(next, self);
    if (state.index >= indexes.length || sources.length === 0 || own === null) {
      Object.assign(state, { phase: 'wait', index: 0, group: 0, after: null, unreachableSince: null });
      return step();
    }
    const uid = indexes[state.index]!;
    const group = sources[state.group]!;
    const remotes = (previous[group] ?? []).filter((name) => name !== self);
    let page: ExportPage | null = null;
    let failure = `group \`${group}\` has no other node`;
    let behind = false;
    for (const name of remotes) {
      const remote = network.remotes[name];
      if (!remote) continue;
      try {
        page = await askExport(client, name, remote, uid, { task: task.uid, group: own, after: state.after, limit: MOVE_PAGE });
        if (page.ready) break;
        behind = true; // alive, not at this task yet: waited for without a limit (it applies the same log)
        page = null;
      } catch (cause) {
        failure = `remote \`${name}\`: ${(cause as Error).message}`;
      }
    }
    if (page === null) {
      if (remotes.length === 0) {
        advanceImport(state, sources.length);
        return step();
      }
      if (behind) {
        state.unreachableSince = null;
        await sleep(POLL_MS);
        return step();
      }
      return waitOrFail(group, failure);
    }
    state.unreachableSince = null;
    if (page.documents.length > 0) {
      const stage = StagedIndex.fromStorage(storage, uid);
      if (stage.record !== null) {
        for (const [externalId, docId, text] of page.documents) importDocument(stage, externalId, docId, text);
        stage.record.updatedAt = context.now;
        plan.index = { uid, before: storage.indexes.get(uid) ?? null, stage };
        state.imported += page.documents.length;
      }
    }
    if (page.done) advanceImport(state, sources.length);
    else state.after = page.after;
    if (state.index >= indexes.length) Object.assign(state, { phase: 'wait', index: 0, group: 0, after: null });
    return step();
  }

  const own = ownGroupIn(next, self);
  const names = Object.keys(next).sort();
  if (state.phase === 'wait') {
    if (state.drops === undefined) {
      // Scanned in bounded steps (SCAN_STEP ids each), from where the last step stopped.
      const found = scanForDrops(storage, indexes, names, own, state);
      if (found === null) return step();
      Object.assign(state, { drops: found, index: 0, after: null });
    }
    if (!state.drops) return finish();
    const others = [...new Set(Object.values(next).flat())].filter((name) => name !== self).sort();
    for (const name of others) {
      const remote = network.remotes[name];
      if (!remote) continue;
      let phase: string;
      try {
        phase = await askPhase(client, name, remote, task.uid);
      } catch (cause) {
        return waitOrFail(name, (cause as Error).message);
      }
      if (phase === 'pending' || phase === 'import') {
        state.unreachableSince = null;
        await sleep(POLL_MS);
        return step();
      }
    }
    Object.assign(state, { phase: 'drop', index: 0, after: null, unreachableSince: null });
    return step();
  }

  // drop
  if (state.index >= indexes.length) return finish();
  const uid = indexes[state.index]!;
  const record = storage.indexes.get(uid);
  if (!record) {
    Object.assign(state, { index: state.index + 1, after: null });
    return step();
  }
  const key = storageKeyOf(record);
  const dropped: string[] = [];
  let scanned = 0;
  let last: string | null = null;
  let reachedEnd = true;
  for (const { key: entry } of storage.externalIds.getRange({ start: [key, state.after ?? ''], end: [key, '\uffff'] })) {
    const externalId = entry[1];
    if (state.after !== null && externalId === state.after) continue;
    if (dropped.length >= MOVE_PAGE || scanned >= SCAN_STEP) {
      reachedEnd = false;
      break;
    }
    scanned++;
    last = externalId;
    if (!keepsDocument(externalId, names, own)) dropped.push(externalId);
  }
  if (dropped.length > 0) {
    const stage = StagedIndex.fromStorage(storage, uid);
    state.moved += applyDocumentDeletion(stage, dropped);
    stage.record!.updatedAt = context.now;
    plan.index = { uid, before: record, stage };
  }
  if (reachedEnd) Object.assign(state, { index: state.index + 1, after: null });
  else state.after = last;
  return step();
}

function advanceImport(state: MoveState, sourceCount: number): void {
  state.after = null;
  state.group++;
  if (state.group >= sourceCount) {
    state.group = 0;
    state.index++;
  }
}

/**
 * Whether this node holds a document it does not keep under the new groups: true or false once
 * known, null when this step's share of the scan ended first (the cursor is left in `state`).
 */
function scanForDrops(storage: Storage, indexes: string[], names: string[], own: string | null, state: MoveState): boolean | null {
  if (own === null || names.length === 0) return false;
  let scanned = 0;
  for (; state.index < indexes.length; state.index++, state.after = null) {
    const record = storage.indexes.get(indexes[state.index]!);
    if (!record) continue;
    const key = storageKeyOf(record);
    for (const entry of storage.externalIds.getKeys({ start: [key, state.after ?? ''], end: [key, '\uffff'] })) {
      const externalId = entry[1] as string;
      if (state.after !== null && externalId === state.after) continue;
      if (!keepsDocument(externalId, names, own)) return true;
      if (++scanned >= SCAN_STEP) {
        state.after = externalId;
        return null;
      }
    }
  }
  return false;
}

export interface ExportPage {
  /** false: the remote did not reach the task yet (or is past it); ask again later. */
  ready: boolean;
  /** [externalId, internal id, stored JSON]. */
  documents: Array<[string, number, string]>;
  /** The last external id scanned: the next page starts after it. */
  after: string | null;
  done: boolean;
}

export interface ExportRequest {
  task: number;
  group: string;
  after: string | null;
  limit: number;
}

async function askExport(remotes: RemoteClient, name: string, remote: { url: string; searchApiKey: string | null }, uid: string, request: ExportRequest): Promise<ExportPage> {
  const response = await remotes.post(name, remote.url, `/indexes/${encodeURIComponent(uid)}/_network-move-export`, remote.searchApiKey, request);
  if (response.status === 404) return { ready: true, documents: [], after: null, done: true }; // the index is gone there too
  if (response.status !== 200) throw new Error(`answered ${response.status}`);
  return readAnswer<ExportPage>(response.text, (page) => typeof page.ready === 'boolean' && Array.isArray(page.documents) && typeof page.done === 'boolean');
}

async function askPhase(remotes: RemoteClient, name: string, remote: { url: string; searchApiKey: string | null }, task: number): Promise<string> {
  const response = await remotes.get(name, remote.url, `/_network-move/${task}`, remote.searchApiKey);
  if (response.status !== 200) throw new Error(`answered ${response.status}`);
  return readAnswer<{ phase: string }>(response.text, (answer) => typeof answer.phase === 'string').phase;
}

/** A remote's JSON answer of the expected shape, or an error naming what came instead. */
function readAnswer<T>(text: string, ok: (value: Record<string, unknown>) => boolean): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`answered something unreadable: ${text.slice(0, 128)}`);
  }
  if (typeof value !== 'object' || value === null || !ok(value as Record<string, unknown>)) throw new Error(`answered an unexpected body: ${text.slice(0, 128)}`);
  return value as T;
}
