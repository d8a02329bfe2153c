// A node's place in the network (issue 23), composed once per server on the main thread by
// src/index.ts: the configuration /network reads and changes (network-config.ts) and the search over
// the shard groups that `useNetwork` asks for (network-search.ts).
import type { ShardFilterContext } from '../filter/shard-filter.js';
import { mayNameShard } from '../filter/shard-filter.js';
import type { ShardSearchOptions } from '../protocol/messages.js';
import type { SearchDispatcher } from '../front/search/search-dispatcher.js';
import type { Storage } from '../storage/environment.js';
import { readFeatures } from '../storage/experimental-features.js';
import { servingPlacement } from '../storage/network-placement.js';
import { ownGroupIn } from '../documents/shard-group.js';
import type { TaskContent } from '../tasks/task-record.js';
import type { NetworkConfig } from './network-config.js';
import { NetworkSearch } from './network-search.js';
import { RemoteAvailability } from './remote-availability.js';
import type { RemoteClient } from './remote-post.js';

export class NetworkNode {
  private readonly search: NetworkSearch;
  /** Which remotes answer this node's network searches (`status` in /network, /network/control). */
  readonly availability = new RemoteAvailability();

  /** `remotes`: the one client every request to a remote goes through (its address policy and bounds). */
  constructor(readonly config: NetworkConfig, dispatcher: SearchDispatcher, private readonly meta: Storage['meta'], readonly remotes: RemoteClient) {
    this.search = new NetworkSearch(config, dispatcher, () => servingPlacement({ meta }), remotes, this.availability);
  }

  /**
   * What this node resolves a `_shard` filter with: it holds its own group's documents (filter/shard-filter.ts),
   * the groups its documents follow now (after a topology change, the ones it recorded: storage/network-placement.ts).
   */
  shardFilterContext(): ShardFilterContext {
    const { placement } = servingPlacement({ meta: this.meta });
    const groups = placement ? Object.keys(placement).sort() : this.config.groupNames;
    const own = placement ? ownGroupIn(placement, this.config.current.self) : this.config.ownGroup;
    return [readFeatures(this.meta).network, groups, own === null ? [] : [own]];
  }

  /** The network search when the `network` feature is on and the network has shard groups; null: a local search answers. */
  forSearch(): NetworkSearch | null {
    return this.config.groupNames.length > 0 && readFeatures(this.meta).network ? this.search : null;
  }
}

/**
 * Cluster mode, the node publishing a document addition: the group names it is split over (every node
 * places its documents by these, whatever its own configuration says when it applies the task).
 */
export function withShardGroupNames(config: NetworkConfig, content: TaskContent): TaskContent {
  if (content.type !== 'documentAdditionOrUpdate') return content;
  const names = config.groupNames;
  return names.length === 0 ? content : { ...content, shardGroups: { names, own: null } };
}

/**
 * Cluster mode, a node applying a document addition (or a deletion by `_shard`) from the log: its own
 * group, so it keeps only those documents (resolves `_shard` with it), and its name (once a topology change was applied, the groups it recorded decide:
 * scheduler/operations/network-move.ts).
 */
export function withOwnShardGroup(config: NetworkConfig, content: TaskContent): TaskContent {
  if ((content.type !== 'documentAdditionOrUpdate' && content.type !== 'documentDeletion') || !('shardGroups' in content) || !content.shardGroups) return content;
  return { ...content, shardGroups: { names: content.shardGroups.names, own: config.ownGroup, self: config.current.self } };
}

/** A search's options, given the `_shard` context when its filter may name `_shard` (the shards resolve it). */
export function withShardFilter<T extends ShardSearchOptions>(node: NetworkNode | null | undefined, meta: Storage['meta'], options: T): T {
  if (!mayNameShard(options.filter)) return options;
  options.shardFilter = node ? node.shardFilterContext() : [readFeatures(meta).network, [], []];
  return options;
}
