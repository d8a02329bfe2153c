import test, { type ExecutionContext } from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { closeStorage, openStorage } from '../../src/storage/environment.js';
import { defaultSettings } from '../../src/settings/index-settings.js';
import { QueryPort } from '../../src/front/threads/query-port.js';
import { decodeQueryBatchResult, encodeQueryBatch } from '../../src/protocol/query-codec.js';
import { decodeShardAck, encodeShardCommand } from '../../src/protocol/shard-command-codec.js';
import type { ShardQueryMessage, ShardQueryResultMessage, ShardWorkerData } from '../../src/protocol/messages.js';

const workerFile = fileURLToPath(new URL('../../src/shard/worker.js', import.meta.url));

/** One shard worker on dbPath with its ports attached as src/index.ts does; stopped and dbPath removed at the end. */
async function startWorker(t: ExecutionContext, dbPath: string): Promise<{ channel: MessageChannel; queryPort: QueryPort }> {
  const workerData: ShardWorkerData = { dbPath, workerIndex: 0, workerCount: 1 };
  // atomics 'disabled' as src/index.ts: otherwise the idle worker never sees its ports' messages.
  const pool = new Piscina({ filename: workerFile, minThreads: 1, maxThreads: 1, workerData, atomics: 'disabled' });
  const channel = new MessageChannel();
  const queryChannel = new MessageChannel();
  const queryPort = new QueryPort(queryChannel.port1);
  await pool.run({ kind: 'attachWorkerPorts', schedulerPort: channel.port2, queryPort: queryChannel.port2, load: true }, { transferList: [channel.port2, queryChannel.port2] });
  t.teardown(async () => {
    queryPort.close();
    channel.port1.close();
    await pool.destroy();
    rmSync(dbPath, { recursive: true, force: true });
  });
  return { channel, queryPort };
}

test('shard worker: loads from LMDB at start, answers query batches on its query port, applies scheduler commands in order', async (t) => {
  const dbPath = mkdtempSync(join(tmpdir(), 'skein-engine-'));
  const storage = openStorage(dbPath);
  const now = new Date().toISOString();
  await storage.indexes.put('books', { uid: 'books', primaryKey: 'id', createdAt: now, updatedAt: now, shardCount: 2,
    nextSeq: 2, documentCount: 2, rawDocumentDbSize: 0, fieldDistribution: {}, settings: defaultSettings() });
  await storage.documents.put(['books', 0], JSON.stringify({ id: 'a', title: 'Dune', year: 1965 }));
  await storage.documents.put(['books', 3], JSON.stringify({ id: 'b', title: 'Dune Messiah', year: 1969 }));
  await closeStorage(storage);

  const { channel, queryPort } = await startWorker(t, dbPath);
  const query = (q: string | null, extra: Partial<ShardQueryMessage> = {}): ShardQueryMessage => ({ requestId: 1, indexUid: 'books',
    shards: [0, 1], q, hitsWanted: 10, matchingStrategy: 'last', attributesToRetrieve: ['title'], exhaustiveCount: false, options: {}, scoresWanted: true, ...extra });
  // A search that runs past its first yield point (a loaded machine) sends its batch-mates' results ahead.
  const run = async (queries: ShardQueryMessage[]) => {
    const buffer = encodeQueryBatch(queries);
    const ahead: ShardQueryResultMessage[] = [];
    const last = decodeQueryBatchResult(await queryPort.run(buffer, (partial) => ahead.push(...decodeQueryBatchResult(partial))));
    return [...ahead, ...last].sort((a, b) => a.requestId - b.requestId);
  };

  const [dune, missing] = await run([query('dune'), query('dune', { requestId: 2, indexUid: 'nope' })]);
  t.is(dune!.candidates, 2);
  t.deepEqual(dune!.hits.map((hit) => JSON.parse(hit.document!)), [{ title: 'Dune' }, { title: 'Dune Messiah' }]);
  t.is(missing!.error?.code, 'index_not_found');

  const acks: number[] = [];
  const allAcked = new Promise<void>((resolve) => channel.port1.on('message', (message: ArrayBuffer) => {
    const ack = decodeShardAck(message);
    t.is(ack.error, null);
    acks.push(ack.commandId);
    if (acks.length === 2) resolve();
  }));
  const send = (command: Parameters<typeof encodeShardCommand>[0]) => {
    const buffer = encodeShardCommand(command);
    channel.port1.postMessage(buffer, [buffer]);
  };
  send({ kind: 'writeBatch', commandId: 7, indexUid: 'books', shard: 0, ops: [{ kind: 'upsert', docId: 4, document: '{"id":"c","title":"Children of Dune"}' }] });
  send({ kind: 'writeBatch', commandId: 8, indexUid: 'books', shard: 1, ops: [{ kind: 'delete', docId: 3 }] });
  await allAcked;
  t.deepEqual(acks, [7, 8]);
  const [after] = await run([query('dune', { attributesToRetrieve: null })]);
  // Every attribute: doc 0's stored JSON is left to the front to read (null); doc 4 is acknowledged
  // but not committed to LMDB, so the worker sends it, from the write batch.
  t.deepEqual(after!.hits.map((hit) => [hit.docId, hit.document === null ? null : JSON.parse(hit.document).title]), [[0, null], [4, 'Children of Dune']]);

  // Once the scheduler says the index equals LMDB, the batch's documents are no longer kept: the
  // front reads doc 4 from LMDB like the others (here the test never wrote it there).
  const committedAck = new Promise<number>((resolve) => channel.port1.once('message', (message: ArrayBuffer) => resolve(decodeShardAck(message).commandId)));
  send({ kind: 'indexCommitted', commandId: 9, indexUid: 'books', commitSeq: 1 });
  t.is(await committedAck, 9);
  const [committed] = await run([query('dune', { attributesToRetrieve: null })]);
  t.deepEqual(committed!.hits.map((hit) => [hit.docId, hit.document]), [[0, null], [4, null]]);
});

test('query port: answers in order; an unreadable batch fails its searches instead of hanging them', async (t) => {
  const { queryPort } = await startWorker(t, mkdtempSync(join(tmpdir(), 'skein-engine-')));
  const batchOf = (requestId: number) => encodeQueryBatch([{ requestId, indexUid: 'none', shards: [0], q: 'x', hitsWanted: 1,
    matchingStrategy: 'last', attributesToRetrieve: null, exhaustiveCount: false, options: {}, scoresWanted: false }]);
  const garbage = new ArrayBuffer(3);
  const answers = await Promise.all([queryPort.run(batchOf(1)), queryPort.run(garbage), queryPort.run(batchOf(3))]);
  t.deepEqual(answers.map((answer) => decodeQueryBatchResult(answer).map((result) => [result.requestId, result.error?.code])),
    [[[1, 'index_not_found']], [], [[3, 'index_not_found']]]);
  queryPort.fail(new Error('gone'));
  await t.throwsAsync(queryPort.run(batchOf(4)), { message: 'gone' });
});
