// A search over the network's shard groups (useNetwork; issue 23), on the main thread of the node that
// received it: this node's group is searched by its own shard workers, every other group by one live
// node of it over HTTP (POST /indexes/{uid}/_network-shard-search with the remote's searchApiKey),
// trying the group's next node when one does not answer. Each group answers what its shard workers
// answer (hits with their score vectors and internal ids, candidate counts, facet partials, distinct
// keys), so the front merges them exactly as it merges the workers of one process (shard-results.ts,
// facet-merge.ts): with the same documents, 1 and N groups answer alike. HTTP, not NATS request/reply:
// every node already serves HTTP with keys, a remote may be any Meilisearch-style URL (/network's
// `remotes`), and the search path then needs no NATS connection.
import { SkeinError, type ErrorBody } from '../errors/index.js';
import type { SearchDispatcher, ShardQuery } from '../front/search/search-dispatcher.js';
import type { SearchParameters } from '../front/search/search-params.js';
import type { ShardQueryResultMessage } from '../protocol/messages.js';
import { ownGroupIn, type Placement } from '../documents/shard-group.js';
import { RemoteAvailability } from './remote-availability.js';
import type { NetworkConfig } from './network-config.js';
import type { RemoteClient } from './remote-post.js';
import { decodeShardResults, searchBodyOf, type RemoteShardSearch } from './shard-search-wire.js';

/** How long a search waits for the groups to be at one version during a topology change. */
const PLACEMENT_WAIT_MS = 3000;
const PLACEMENT_POLL_MS = 20;
/** The routes a remote group answers through (network-routes.ts): a search's, the documents routes'. */
const REMOTE_SEARCH_ROUTE = '_network-shard-search';
const REMOTE_DOCUMENTS_ROUTE = '_network-documents';

export interface NetworkAnswer {
  results: ShardQueryResultMessage[];
  /** Groups none of whose nodes answered: the last error by remote name (Meilisearch's remoteErrors). */
  remoteErrors?: Record<string, ErrorBody>;
}

export class NetworkSearch {
  /** Which node of a group a search tries first: turns, so a group's nodes share the searches. */
  private turn = 0;

  constructor(private readonly config: NetworkConfig, private readonly local: SearchDispatcher,
    /** The groups this node's documents follow and their version (storage/network-placement.ts). */
    private readonly serving: () => { version: number; placement: Placement | null },
    /** The one client every request to a remote goes through (its address policy and bounds). */
    private readonly remotes: RemoteClient,
    /** Which remotes answer searches now (remote-availability.ts): failed ones are tried last, drained ones never. */
    private readonly availability: RemoteAvailability = new RemoteAvailability()) {}

  /**
   * Every group answers at this node's version of the groups: during a topology change a node that
   * is at another one answers `network_placement_mismatch` (another node of its group is tried); then
   * the search waits for this node to reach the newer version, or for the others to, and runs again.
   * Past PLACEMENT_WAIT_MS it is answered with what the groups hold (a document may then count twice).
   */
  async search(uid: string, query: ShardQuery, shardCount: number, parameters: SearchParameters): Promise<NetworkAnswer> {
    // SKEIN_NETWORK_VERSIONS=0: the configuration's groups, no version (the figure without it: rebalance-figures.ts).
    if (process.env['SKEIN_NETWORK_VERSIONS'] === '0') return this.searchAt(uid, query, shardCount, parameters, null, undefined);
    const deadline = Date.now() + PLACEMENT_WAIT_MS;
    for (;;) {
      const serving = this.serving();
      const strict = Date.now() < deadline;
      const answer = await this.searchAt(uid, query, shardCount, parameters, serving.placement, strict ? serving.version : undefined);
      if (answer.mismatch === undefined) {
        if (!strict || this.serving().version === serving.version) return answer;
        continue;
      }
      if (answer.mismatch > serving.version) {
        while (this.serving().version < answer.mismatch && Date.now() < deadline) await sleep(PLACEMENT_POLL_MS);
      } else await sleep(PLACEMENT_POLL_MS);
    }
  }

  private async searchAt(uid: string, query: ShardQuery, shardCount: number, parameters: SearchParameters, placement: Placement | null,
    placementVersion: number | undefined): Promise<NetworkAnswer & { mismatch?: number }> {
    const body = searchBodyOf(parameters);
    const versioned = { ...(placementVersion === undefined ? {} : { placementVersion }),
      ...(parameters.options.rankingScoreValues === true ? { rankingScoreValues: true as const } : {}) };
    if (query.matchingStrategy === 'frequency' && query.q) {
      // As the dispatcher does over its workers: the terms' document counts summed over every group first.
      const counting: ShardQuery = { indexUid: query.indexUid, q: query.q, hitsWanted: 0, matchingStrategy: query.matchingStrategy,
        attributesToRetrieve: null, exhaustiveCount: false, options: { termDocCountsOnly: true } };
      const counted = await this.fanOut(uid, counting, shardCount, { search: body, termDocCountsOnly: true, ...versioned }, placement);
      if (counted.remoteErrors || counted.mismatch !== undefined) return counted;
      const sums: number[] = [];
      for (const result of counted.results) {
        const counts = (result.extras as { termDocCounts?: number[] } | null)?.termDocCounts ?? [];
        counts.forEach((count, term) => (sums[term] = (sums[term] ?? 0) + count));
      }
      for (let term = 0; term < sums.length; term++) sums[term] ??= 0;
      return this.fanOut(uid, { ...query, options: { ...query.options, termDocCounts: sums } }, shardCount, { search: body, termDocCounts: sums, ...versioned }, placement);
    }
    return this.fanOut(uid, query, shardCount, { search: body, ...versioned }, placement);
  }

  /**
   * useNetwork on the documents routes (GET /documents, POST /documents/fetch): this node's group from
   * `local`, every other group's from one of its nodes' `_network-documents` route, given `body` (a
   * fetch body whose window starts at 0), over the groups this node's documents follow now (no version
   * check: a documents read during a topology change may see a moved document twice, as Meilisearch's);
   * the caller merges by sort values then internal id.
   */
  documents(uid: string, body: Record<string, unknown>, local: () => Promise<ShardQueryResultMessage[]>): Promise<NetworkAnswer> {
    return this.gather(uid, local, REMOTE_DOCUMENTS_ROUTE, body, this.serving().placement);
  }

  private fanOut(uid: string, query: ShardQuery, shardCount: number, remote: RemoteShardSearch, placement: Placement | null):
  Promise<NetworkAnswer & { mismatch?: number }> {
    return this.gather(uid, () => this.local.search(query, shardCount, true), REMOTE_SEARCH_ROUTE, remote, placement);
  }

  private async gather(uid: string, local: () => Promise<ShardQueryResultMessage[]>, route: string, remote: unknown, placement: Placement | null):
  Promise<NetworkAnswer & { mismatch?: number }> {
    const groups = placement ? Object.keys(placement).sort() : this.config.groupNames;
    const own = placement ? ownGroupIn(placement, this.config.current.self) : this.config.ownGroup;
    const turn = this.turn++;
    const answers = await Promise.all(groups.map((group) => group === own
      ? local().then((results) => ({ results, error: null }))
      : this.searchGroup(placement ? placement[group] ?? [] : this.config.current.shards[group]?.remotes ?? [], group,
        `/indexes/${encodeURIComponent(uid)}/${route}`, remote, turn)));
    const results: ShardQueryResultMessage[] = [];
    let remoteErrors: Record<string, ErrorBody> | undefined;
    let mismatch: number | undefined;
    for (const answer of answers) {
      if ('mismatch' in answer && answer.mismatch !== undefined) mismatch = Math.max(mismatch ?? -1, answer.mismatch);
      else if (answer.error) (remoteErrors ??= {})[answer.error.remote] = answer.error.body;
      else results.push(...answer.results);
    }
    if (mismatch !== undefined) return { results: [], mismatch };
    return remoteErrors ? { results, remoteErrors } : { results };
  }

  /** One node of the group, trying the next on a failure to answer; a refused search (4xx) fails the whole search. */
  private async searchGroup(names: readonly string[], group: string, path: string, request: unknown, turn: number):
  Promise<{ results: ShardQueryResultMessage[]; error: { remote: string; body: ErrorBody } | null; mismatch?: number }> {
    let last: { remote: string; body: ErrorBody } = { remote: group, body: new SkeinError('remote_could_not_send_request', `Shard \`${group}\` has no remote.`).toBody() };
    let mismatch: number | undefined;
    // In turn from `turn`; nodes that failed lately last; nodes drained through /network/control never.
    const rotated = names.map((_, k) => names[(turn + k) % names.length]!).filter((name) => !this.availability.isDrained(name));
    const ordered = [...rotated.filter((name) => this.availability.isAvailable(name)), ...rotated.filter((name) => !this.availability.isAvailable(name))];
    for (const name of ordered) {
      const remote = this.config.current.remotes[name];
      if (!remote) continue;
      try {
        const results = await askRemote(this.remotes, name, remote.url, remote.searchApiKey, path, request);
        if (this.availability.isCoolingDown(name)) this.availability.markAvailable(name);
        return { results, error: null };
      } catch (cause) {
        if (cause instanceof PlacementMismatch) {
          mismatch = Math.max(mismatch ?? -1, cause.version);
          continue;
        }
        if (cause instanceof SkeinError && cause.status < 500 && cause.code !== 'remote_invalid_api_key') throw cause;
        this.availability.markUnavailable(name);
        last = { remote: name, body: (cause instanceof SkeinError ? cause : new SkeinError('remote_could_not_send_request', String(cause))).toBody() };
      }
    }
    return mismatch !== undefined ? { results: [], error: null, mismatch } : { results: [], error: last };
  }
}

/** A remote at another version of the groups than the search (a topology change under way). */
class PlacementMismatch extends Error {
  constructor(readonly version: number) {
    super(`placement version ${version}`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function askRemote(remotes: RemoteClient, name: string, url: string, apiKey: string | null, path: string, request: unknown): Promise<ShardQueryResultMessage[]> {
  const response = await remotes.post(name, url, path, apiKey, request);
  const text = response.text;
  if (response.status === 409) {
    const body = parseJson(text) as { code?: unknown; placementVersion?: unknown } | null;
    if (body?.code === 'network_placement_mismatch' && typeof body.placementVersion === 'number') throw new PlacementMismatch(body.placementVersion);
  }
  if (response.status >= 400 && response.status < 500) {
    // The same engine refused the same search: its own error, as a local search would answer.
    const body = parseJson(text) as ErrorBody | null;
    if (body && typeof body.code === 'string' && typeof body.message === 'string') throw new SkeinError('remote_bad_request', `Remote \`${name}\`: ${body.message}`);
    throw new SkeinError('remote_bad_request', `Remote \`${name}\` answered ${response.status}.`);
  }
  if (response.status !== 200) throw new SkeinError('remote_remote_error', `Remote \`${name}\` answered ${response.status}: ${text.slice(0, 256)}`);
  try {
    return decodeShardResults(text);
  } catch (cause) {
    throw new SkeinError('remote_bad_response', `Remote \`${name}\` answered something unreadable: ${(cause as Error).message}.`);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
