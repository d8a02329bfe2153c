import test from 'ava';
import { MessageChannel } from 'node:worker_threads';
import { errorBody } from '../../src/errors/index.js';
import { decodeShardCommand, encodeShardAck } from '../../src/protocol/shard-command-codec.js';
import { ShardLink } from '../../src/scheduler/shards/shard-link.js';

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
  await link.send(0, { kind: 'loadIndex', indexUid: 'x', shardCount: 2, settings: { a: 1 }, keepShards: false });
  const error = await t.throwsAsync(link.send(0, { kind: 'dropIndex', indexUid: 'x' }));
  t.is((error as { code?: string }).code, 'index_not_found');
  t.deepEqual(received, ['writeBatch', 'loadIndex', 'dropIndex']);
  channel.port1.close();
});

test('a worker whose port closes fails the commands it did not ack at once, and every command until its replacement port', async (t) => {
  const dead = new MessageChannel();
  const alive = new MessageChannel();
  // The live worker acks everything; the dead one never answers, then its end closes (the thread died).
  alive.port2.on('message', (buffer: ArrayBuffer) => {
    const ack = encodeShardAck({ commandId: decodeShardCommand(buffer).commandId, error: null });
    alive.port2.postMessage(ack, [ack]);
  });
  dead.port2.on('message', () => {});
  const link = new ShardLink([dead.port1, alive.port1]);
  const stopped: number[] = [];
  link.onWorkerStopped = (worker) => stopped.push(worker);
  const unanswered = link.send(0, { kind: 'dropIndex', indexUid: 'x' });
  await link.send(1, { kind: 'dropIndex', indexUid: 'x' });
  dead.port2.close();
  const error = await t.throwsAsync(unanswered);
  t.is((error as { code?: string }).code, 'internal');
  t.deepEqual(stopped, [0]);
  t.false(link.isUp(0));
  t.true(link.isUp(1));
  await t.throwsAsync(link.send(0, { kind: 'dropIndex', indexUid: 'x' }), { message: /being replaced/ });

  const replacement = new MessageChannel();
  replacement.port2.on('message', (buffer: ArrayBuffer) => {
    const ack = encodeShardAck({ commandId: decodeShardCommand(buffer).commandId, error: null });
    replacement.port2.postMessage(ack, [ack]);
  });
  link.replace(0, replacement.port1);
  t.true(link.isUp(0));
  await link.send(0, { kind: 'dropIndex', indexUid: 'x' });
  t.deepEqual(stopped, [0], 'the old port closing again does not stop the replacement');
  for (const port of [replacement.port1, replacement.port2, alive.port1, alive.port2]) port.close();
});
