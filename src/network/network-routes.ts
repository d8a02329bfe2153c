// GET / PATCH /network (Meilisearch's shape: self, remotes, shards, leader) and the route a network
// search asks a remote group through (network-search.ts). Main thread.
import { samePlacement, type Placement } from '../documents/shard-group.js';
import { echo, SkeinError } from '../errors/index.js';
import { jsonReply } from '../front/http/http-types.js';
import { validateIndexUid } from '../front/indexes/index-uid.js';
import type { FrontContext, RouteSpec } from '../front/http/route-spec.js';
import { parseSearchBody } from '../front/search/search-params.js';
import { shardQueryOf } from '../front/search/search-routes.js';
import { readFeatures } from '../storage/experimental-features.js';
import { readMoveState, servingPlacement } from '../storage/network-placement.js';
import { tasksNewestFirst } from '../tasks/task-listing.js';
import { isPlainObject } from '../front/http/deserr-messages.js';
import type { NetworkValue } from './network-config.js';
import type { RemoteStatus } from './remote-availability.js';
import { moveRoutes } from './move-routes.js';
import { storageKeyOf } from '../storage/records.js';
import { localDocumentResults, parseFetchBody } from '../front/indexes/documents-filter.js';
import { encodeShardResults, parseRemoteShardSearch } from './shard-search-wire.js';

export const networkRoutes: RouteSpec[] = [
  {
    method: 'GET', path: '/network', action: 'network.get', body: 'none',
    handle: (_request, context) => jsonReply(200, networkView(context, networkOf(context).current)),
  },
  {
    method: 'PATCH', path: '/network', action: 'network.update', body: 'json',
    handle: async (request, context) => {
      const config = networkOf(context);
      const previous = placementOf(config.current);
      const network = config.patch(request.json);
      // Cluster mode: new shard groups move the documents whose group changed (scheduler/operations/network-move.ts),
      // through the task log, so every node moves at the same point of it.
      const next = placementOf(network);
      const moves = context.scheduler.enqueueThrough !== null && !samePlacement(previous, next);
      const change = moves ? { type: 'networkTopologyChange' as const, previous, next } : { type: 'networkTopologyChange' as const };
      // With a leader, Meilisearch v1.53 answers the networkTopologyChange task; without, the network (the task is in /tasks).
      if (network.leader !== null) return jsonReply(202, await context.scheduler.enqueue(change));
      if (moves) await context.scheduler.enqueue(change);
      return jsonReply(200, networkView(context, network));
    },
  },
  {
    // Meilisearch v1.53's messages to a topology change in progress, and a remote's status. Skein's
    // nodes learn imports and exports by asking each other (scheduler/operations/network-move.ts), so the first two
    // are checked (a networkTopologyChange enqueued or processing here) and change nothing; a status
    // decides whether this node's network searches ask the remote (remote-availability.ts).
    method: 'POST', path: '/network/control', action: 'network.update', body: 'json',
    handle: (request, context) => {
      if (!readFeatures(context.storage.meta).network) {
        throw new SkeinError('feature_not_enabled',
          'Using the /network/control route requires enabling the `network` experimental feature. See https://github.com/orgs/meilisearch/discussions/805');
      }
      const change = parseNetworkChange(request.json);
      const availability = context.network?.availability;
      if (change.type === 'statusChangeForRemote') {
        if (change.status === 'available') availability?.markAvailable(change.remote);
        else availability?.markUnavailableIndefinitely(change.remote);
      } else if (!networkTaskInProgress(context)) {
        throw new SkeinError('import_task_without_network_task', 'No network topology change task is currently enqueued or processing');
      }
      return { status: 200, body: '' };
    },
  },
  {
    // Skein's own route (not Meilisearch's): one group's part of a network search, scores included.
    method: 'POST', path: '/indexes/{indexUid}/_network-shard-search', action: 'search', body: 'json',
    handle: async (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      const remote = parseRemoteShardSearch(request.json);
      const parameters = parseSearchBody(remote.search);
      delete parameters.options.useNetwork;
      const { index, key, query } = shardQueryOf(request.access, context, uid, parameters);
      if (remote.termDocCountsOnly) {
        Object.assign(query, { hitsWanted: 0, attributesToRetrieve: null, exhaustiveCount: false, options: { termDocCountsOnly: true } });
      } else if (remote.termDocCounts) query.options = { ...query.options, termDocCounts: remote.termDocCounts };
      if (remote.rankingScoreValues && !remote.termDocCountsOnly) query.options = { ...query.options, rankingScoreValues: true };
      // Its counts join the other groups' at the asking node: no worker here holds the whole index.
      query.options = { ...query.options, networked: true };
      // A topology change under way: this node answers only at the asking node's version of the groups (network-search.ts).
      const version = () => servingPlacement(context.storage).version;
      const mismatch = () => jsonReply(409, { ...new SkeinError('network_placement_mismatch',
        `This node's documents follow the shard groups of version ${version()}, not ${remote.placementVersion}.`).toBody(), placementVersion: version() });
      if (remote.placementVersion !== undefined && version() !== remote.placementVersion) return mismatch();
      const results = await context.search.search(query, index.shardCount, true);
      if (remote.placementVersion !== undefined && version() !== remote.placementVersion) return mismatch();
      const body = encodeShardResults(results, (docId) => {
        const bytes = context.storedDocuments.get([key, docId]);
        return bytes === undefined ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
      });
      return { status: 200, body };
    },
  },
  ...moveRoutes,
  {
    // Skein's own route too: one group's part of a documents fetch over the network (documents-filter.ts).
    method: 'POST', path: '/indexes/{indexUid}/_network-documents', action: 'documents.get', body: 'json',
    handle: async (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      const fetch = parseFetchBody(request.json);
      const key = storageKeyOf(context.indexes.require(uid));
      const results = await localDocumentResults(context, uid, { ...fetch, useNetwork: null });
      return { status: 200, body: encodeShardResults(results, (docId) => context.storage.documents.get([key, docId])) };
    },
  },
  {
    // Skein's own (cluster mode): a node gone for good stops holding the task log's compaction back
    // (its subject in skein-progress). A live node forgotten reports again at its next task; if
    // compaction purged past it meanwhile it restores itself from the latest snapshot (README "Cluster").
    method: 'DELETE', path: '/cluster/nodes/{name}', action: 'network.update', body: 'none',
    handle: async (request, context) => {
      const name = request.params.name!;
      if (!context.cluster) throw new SkeinError('bad_request', 'This server is not part of a cluster (--cluster-nats-urls).');
      if (name === context.cluster.nodeName) throw new SkeinError('bad_request', `\`${echo(name)}\` is this node: stop it, then forget it through another node.`);
      if (!await context.cluster.forgetNode(name)) throw new SkeinError('bad_request', `Node \`${echo(name)}\` has no progress in the cluster.`);
      return { status: 204, body: '' };
    },
  },
];

/** /network's answer: the stored network, each remote with its `status` for this node's searches. */
function networkView(context: FrontContext, network: NetworkValue): unknown {
  const availability = context.network?.availability;
  const remotes = Object.fromEntries(Object.entries(network.remotes).map(([name, remote]) =>
    [name, { ...remote, status: availability ? availability.status(name) : 'available' }]));
  return { ...network, remotes };
}

type NetworkChange =
  | { type: 'exportNoIndexForRemote' | 'importFinishedForRemote'; remote: string }
  | { type: 'statusChangeForRemote'; remote: string; status: RemoteStatus };

const MESSAGE_TYPES = ['exportNoIndexForRemote', 'importFinishedForRemote', 'statusChangeForRemote'];

/** `{origin: {remoteName, taskUid, networkVersion?}, message: {type, remote, ...}}`, refused as a JSON body serde rejects (bad_request). */
function parseNetworkChange(body: unknown): NetworkChange {
  const bad = (message: string) => new SkeinError('bad_request', `Json deserialize error: ${message}`);
  if (!isPlainObject(body)) throw bad('invalid type: expected struct NetworkChange');
  for (const field of Object.keys(body)) if (field !== 'origin' && field !== 'message') throw bad(`unknown field \`${echo(field)}\`, expected \`origin\` or \`message\``);
  const { origin, message } = body;
  if (origin === undefined) throw bad('missing field `origin`');
  if (message === undefined) throw bad('missing field `message`');
  if (!isPlainObject(origin)) throw bad('invalid type for `origin`: expected struct Origin');
  if (typeof origin.remoteName !== 'string') throw bad(origin.remoteName === undefined ? 'missing field `remoteName`' : 'invalid type for `remoteName`: expected a string');
  if (!Number.isInteger(origin.taskUid) || (origin.taskUid as number) < 0 || (origin.taskUid as number) > 0xffffffff) {
    throw bad(origin.taskUid === undefined ? 'missing field `taskUid`' : 'invalid value for `taskUid`: expected u32');
  }
  if (origin.networkVersion !== undefined && (typeof origin.networkVersion !== 'string' || !/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(origin.networkVersion))) {
    throw bad('invalid value for `networkVersion`: expected a UUID');
  }
  if (!isPlainObject(message)) throw bad('invalid type for `message`: expected internally tagged enum Message');
  if (message.type === undefined) throw bad('missing field `type`');
  if (typeof message.type !== 'string' || !MESSAGE_TYPES.includes(message.type)) {
    throw bad(`unknown variant \`${echo(String(message.type))}\`, expected one of \`exportNoIndexForRemote\`, \`importFinishedForRemote\`, \`statusChangeForRemote\``);
  }
  if (typeof message.remote !== 'string') throw bad(message.remote === undefined ? 'missing field `remote`' : 'invalid type for `remote`: expected a string');
  if (message.remote.length > 512) throw bad('`remote` is longer than 512 characters');
  if (message.type === 'importFinishedForRemote' && typeof message.successful !== 'boolean') {
    throw bad(message.successful === undefined ? 'missing field `successful`' : 'invalid type for `successful`: expected a boolean');
  }
  if (message.type === 'statusChangeForRemote') {
    if (message.status !== 'available' && message.status !== 'unavailable') {
      throw bad(message.status === undefined ? 'missing field `status`' : 'unknown variant for `status`, expected `available` or `unavailable`');
    }
    return { type: 'statusChangeForRemote', remote: message.remote, status: message.status };
  }
  return { type: message.type as 'exportNoIndexForRemote' | 'importFinishedForRemote', remote: message.remote };
}

/** A networkTopologyChange task enqueued or processing on this node. */
function networkTaskInProgress(context: FrontContext): boolean {
  if (readMoveState(context.storage) !== null) return true;
  for (const task of tasksNewestFirst(context.storage)) {
    if (task.type === 'networkTopologyChange' && (task.status === 'enqueued' || task.status === 'processing')) return true;
  }
  return false;
}

function placementOf(network: { shards: Record<string, { remotes: string[] }> }): Placement {
  return Object.fromEntries(Object.entries(network.shards).map(([name, shard]) => [name, [...shard.remotes]]));
}

function networkOf(context: FrontContext) {
  if (!readFeatures(context.storage.meta).network) {
    throw new SkeinError('feature_not_enabled',
      'Using the /network route requires enabling the `network` experimental feature. See https://github.com/orgs/meilisearch/discussions/805');
  }
  if (!context.network) throw new SkeinError('internal', 'This server has no network configuration.');
  return context.network.config;
}
