import test from 'ava';
import { MessageChannel } from 'node:worker_threads';
import { errorBody } from '../../src/errors/index.js';
import { decodeShardCommand, encodeShardAck } from '../../src/protocol/shard-command-codec.js';
import { ShardLink } from '../../src/scheduler/shard-link.js';

test('commands travel as flatbuffers and resolve on their ack; failed acks reject with the error', async (t) => {
  const channel = new MessageChannel();
  const received: string[] = [];
  channel.port2.on('message', (buffer: ArrayBuffer) => {
    const command = decodeShardCommand(buffer);
    received.push(command.kind);
    const error = command.kind === 'dropIndex' ? errorBody('index_not_found', 'Index `x` not found.') : null;
    const ack = encodeShardAck({ commandId: command.commandId, error });
    channel.port2.postMessage(ack, [ack]);
  });
  const link = new ShardLink([channel.port1]);
  await link.send(0, { kind: 'writeBatch', indexUid: 'x', shard: 0, ops: [{ kind: 'upsert', docId: 4, document: '{"id":1}' }, { kind: 'delete', docId: 8 }] });
  await link.send(0, { kind: 'loadIndex', indexUid: 'x', shardCount: 2, settings: { a: 1 } });
  const error = await t.throwsAsync(link.send(0, { kind: 'dropIndex', indexUid: 'x' }));
  t.is((error as { code?: string }).code, 'index_not_found');
  t.deepEqual(received, ['writeBatch', 'loadIndex', 'dropIndex']);
  channel.port1.close();
});
