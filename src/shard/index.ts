export { ShardIndex } from './shard-index.js';
export { ShardEngine, type DocumentSource, type EngineSearch, type EngineSearchResult, type JsonDocument } from './shard-engine.js';
export { compileIndexConfig, type IndexConfig } from './index-config.js';

export type { ShardSearchRequest, ShardSearchResult } from './search/shard-search.js';
