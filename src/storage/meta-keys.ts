// Keys of the `meta` db that more than one thread reads (the scheduler writes them all).

/**
 * JSON list of the index uids of the batch being processed ([] when idle), so the front answers
 * `isIndexing` in /stats with one read instead of a scan of every task.
 */
export const PROCESSING_INDEX_UIDS = 'processingIndexUids';

/** JSON object of the experimental features' flags as PATCH /experimental-features last stored them (experimental-features.ts). */
export const EXPERIMENTAL_FEATURES = 'experimentalFeatures';

/** The instance uid a dump names (`instance_uid.uuid`); written by a dump import, else a dump makes one up. */
export const INSTANCE_UID = 'instanceUid';

/** Cluster mode (src/cluster): the last task log sequence applied, written with the task it enqueued (one transaction). */
export const CLUSTER_APPLIED_SEQ = 'clusterAppliedSeq';

/** Cluster mode (src/cluster/config-log.ts): the last skein-config sequence (keys, features) applied, written with its change. */
export const CLUSTER_CONFIG_SEQ = 'clusterConfigSeq';

/** Cluster sharding (storage/network-placement.ts): a topology change in progress, the groups the documents follow and that change's uid. */
export const NETWORK_MOVE = 'networkMove';
export const NETWORK_PLACEMENT = 'networkPlacement';
export const NETWORK_PLACEMENT_UID = 'networkPlacementUid';
