// The front's modules that startServer needs only once the shard workers are started (index.ts imports
// this file then): the main thread loads them (~200-300 ms, uWS and prom-client among them) while the
// workers load theirs and restore their shards, instead of before the workers even exist.
export { default as uws } from './uws.js';
export { createAuthorizer, KeyCache } from './authorization.js';
export { createHttpApp } from './http-server.js';
export { IndexCatalog } from './index-catalog.js';
export { IngestClient } from './ingest-client.js';
export { listenExclusively } from './listen.js';
export { warmUpFront } from './warm-up.js';
export { ServerMetrics } from './metrics.js';
export { buildRouter } from './routes.js';
export { SchedulerClient } from './scheduler-client.js';
export { StoredDocumentCache } from './stored-document-cache.js';
export { SearchDispatcher } from './search-dispatcher.js';
export { NetworkConfig } from '../network/network-config.js';
export { NetworkNode } from '../network/network-node.js';
export { IpPolicy } from '../network/ip-policy.js';
export { RemoteClient } from '../network/remote-post.js';
