export * from './messages.js';
export { encodeQueryBatch, decodeQueryBatch, encodeQueryBatchResult, decodeQueryBatchResult } from './query-codec.js';
export { encodeShardCommand, decodeShardCommand, encodeShardAck, decodeShardAck } from './shard-command-codec.js';
export { encodeSchedulerMessage, decodeSchedulerMessage } from './scheduler-codec.js';
