// The front's modules that startServer needs only once the shard workers are started (index.ts imports
// this file then): the main thread loads them (~200-300 ms, uWS and prom-client among them) while the
// workers load theirs and restore their shards, instead of before the workers even exist.
export { default as uws } from './http/uws.js';
export { createAuthorizer, KeyCache } from './keys/authorization.js';
export { createHttpApp } from './http-server.js';
export { IndexCatalog } from './indexes/index-catalog.js';
export { IngestClient } from './threads/ingest-client.js';
export { listenExclusively } from './http/listen.js';
export { warmUpFront, warmUpIngest } from './threads/warm-up.js';
export { ServerMetrics } from './ops/metrics.js';
export { buildRouter } from './routes.js';
export { SchedulerClient } from './threads/scheduler-client.js';
export { StoredDocumentCache } from './indexes/stored-document-cache.js';
export { SearchDispatcher } from './search/search-dispatcher.js';
export { SplitChoiceCache } from './search/split-choice-cache.js';
export { NetworkConfig } from '../network/network-config.js';
export { NetworkNode } from '../network/network-node.js';
export { IpPolicy } from '../network/ip-policy.js';
export { RemoteClient } from '../network/remote-post.js';
