// API keys and tenant tokens, shared by the front (authorization, /keys) and the scheduler (storage).
export * from './access.js';
export * from './actions.js';
export * from './index-patterns.js';
export * from './key-record.js';
export * from './key-ring.js';
export * from './tenant-token.js';
