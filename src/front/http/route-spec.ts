// What a route is: method, path pattern, the key action it needs, how it reads its body, and its handler.
import type { ResolvedOptions } from '../../config/options.js';
import type { Storage } from '../../storage/environment.js';
import type { NetworkNode } from '../../network/network-node.js';
import type { KeyAction, KeyCache } from '../keys/authorization.js';
import type { BodyKind, FrontReply, FrontRequest } from './http-types.js';
import type { IndexCatalog } from '../indexes/index-catalog.js';
import type { IngestClient } from '../threads/ingest-client.js';
import type { ServerMetrics } from '../ops/metrics.js';
import type { SchedulerClient } from '../threads/scheduler-client.js';
import type { SearchDispatcher } from '../search/search-dispatcher.js';
import type { ServerLog } from '../ops/server-log.js';
import type { StoredDocuments } from '../search/stored-hits.js';

export interface FrontContext {
  options: ResolvedOptions;
  storage: Storage;
  indexes: IndexCatalog;
  /** The hits' stored JSON, read through a cache (stored-document-cache.ts). */
  storedDocuments: StoredDocuments<Uint8Array>;
  scheduler: SchedulerClient;
  search: SearchDispatcher;
  ingest: IngestClient;
  /** The stored API keys (src/front/keys/keys-routes.ts reads them; the authorizer checks them). */
  keys: KeyCache;
  /** Whether every thread is there (GET /health): not while one is being replaced (worker-supervisor.ts). */
  threads: { readonly available: boolean };
  /** The server's metrics registry (GET /metrics). */
  metrics: ServerMetrics;
  /** The server's logger and its sinks (server-log.ts; the /logs/* routes change them). */
  log: ServerLog;
  /** /network and useNetwork (src/network). */
  network?: NetworkNode;
  /** Cluster mode (src/cluster): this node's name, and forgetting a node gone for good (DELETE /cluster/nodes/{name}). */
  cluster?: { readonly nodeName: string; forgetNode(name: string): Promise<boolean> };
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteSpec {
  method: HttpMethod;
  path: string;
  action: KeyAction;
  body: BodyKind;
  handle(request: FrontRequest, context: FrontContext): FrontReply | Promise<FrontReply>;
}
