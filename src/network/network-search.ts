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
import type { SearchDispatcher, ShardQuery } from '../front/search-dispatcher.js';
import type { SearchParameters } from '../front/search-params.js';
import type { ShardQueryResultMessage } from '../protocol/messages.js';
import type { NetworkConfig } from './network-config.js';
import type { RemoteClient } from './remote-post.js';
import { decodeShardResults, searchBodyOf, type RemoteShardSearch } from './shard-search-wire.js';

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

  constructor(private readonly config: NetworkConfig, private readonly local: SearchDispatcher, private readonly remotes: RemoteClient) {}

  async search(uid: string, query: ShardQuery, shardCount: number, parameters: SearchParameters): Promise<NetworkAnswer> {
    const body = searchBodyOf(parameters);
    if (query.matchingStrategy === 'frequency' && query.q) {
      // As the dispatcher does over its workers: the terms' document counts summed over every group first.
      const counting: ShardQuery = { indexUid: query.indexUid, q: query.q, hitsWanted: 0, matchingStrategy: query.matchingStrategy,
        attributesToRetrieve: null, exhaustiveCount: false, options: { termDocCountsOnly: true } };
      const counted = await this.fanOut(uid, counting, shardCount, { search: body, termDocCountsOnly: true });
      if (counted.remoteErrors) return counted;
      const sums: number[] = [];
      for (const result of counted.results) {
        const counts = (result.extras as { termDocCounts?: number[] } | null)?.termDocCounts ?? [];
        counts.forEach((count, term) => (sums[term] = (sums[term] ?? 0) + count));
      }
      for (let term = 0; term < sums.length; term++) sums[term] ??= 0;
      return this.fanOut(uid, { ...query, options: { ...query.options, termDocCounts: sums } }, shardCount, { search: body, termDocCounts: sums });
    }
    return this.fanOut(uid, query, shardCount, { search: body });
  }

  /**
   * useNetwork on the documents routes (GET /documents, POST /documents/fetch): this node's group from
   * `local`, every other group's from one of its nodes' `_network-documents` route, given `body` (a
   * fetch body whose window starts at 0); the caller merges by sort values then internal id.
   */
  documents(uid: string, body: Record<string, unknown>, local: () => Promise<ShardQueryResultMessage[]>): Promise<NetworkAnswer> {
    return this.gather(uid, local, REMOTE_DOCUMENTS_ROUTE, body);
  }

  private fanOut(uid: string, query: ShardQuery, shardCount: number, remote: RemoteShardSearch): Promise<NetworkAnswer> {
    return this.gather(uid, () => this.local.search(query, shardCount, true), REMOTE_SEARCH_ROUTE, remote);
  }

  private async gather(uid: string, local: () => Promise<ShardQueryResultMessage[]>, route: string, remote: unknown): Promise<NetworkAnswer> {
    const own = this.config.ownGroup;
    const turn = this.turn++;
    const answers = await Promise.all(this.config.groupNames.map((group) => group === own
      ? local().then((results) => ({ results, error: null }))
      : this.searchGroup(group, `/indexes/${encodeURIComponent(uid)}/${route}`, remote, turn)));
    const results: ShardQueryResultMessage[] = [];
    let remoteErrors: Record<string, ErrorBody> | undefined;
    for (const answer of answers) {
      if (answer.error) (remoteErrors ??= {})[answer.error.remote] = answer.error.body;
      else results.push(...answer.results);
    }
    return remoteErrors ? { results, remoteErrors } : { results };
  }

  /** One node of the group, trying the next on a failure to answer; a refused search (4xx) fails the whole search. */
  private async searchGroup(group: string, path: string, request: unknown, turn: number):
  Promise<{ results: ShardQueryResultMessage[]; error: { remote: string; body: ErrorBody } | null }> {
    const names = this.config.current.shards[group]?.remotes ?? [];
    let last: { remote: string; body: ErrorBody } = { remote: group, body: new SkeinError('remote_could_not_send_request', `Shard \`${group}\` has no remote.`).toBody() };
    for (let k = 0; k < names.length; k++) {
      const name = names[(turn + k) % names.length]!;
      const remote = this.config.current.remotes[name];
      if (!remote) continue;
      try {
        return { results: await askRemote(this.remotes, name, remote.url, remote.searchApiKey, path, request), error: null };
      } catch (cause) {
        if (cause instanceof SkeinError && cause.status < 500 && cause.code !== 'remote_invalid_api_key') throw cause;
        last = { remote: name, body: (cause instanceof SkeinError ? cause : new SkeinError('remote_could_not_send_request', String(cause))).toBody() };
      }
    }
    return { results: [], error: last };
  }
}

async function askRemote(remotes: RemoteClient, name: string, url: string, apiKey: string | null, path: string, request: unknown): Promise<ShardQueryResultMessage[]> {
  const response = await remotes.post(name, url, path, apiKey, request);
  const text = response.text;
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
