// Commands from the scheduler thread to a shard worker, and the worker's acknowledgement.
import * as flatbuffers from 'flatbuffers';
import * as fb from './generated/protocol_generated.js';
import { byteBufferOf, finishToTransferable, readError, writeError } from './flatbuffer-io.js';
import type { DocumentOpMessage, ShardAckMessage, ShardCommandMessage } from './messages.js';

/**
 * Encodes shard commands through one reused UTF-8 buffer for the documents. Owner: the scheduler's
 * ShardLink (one per scheduler thread, for its life); one command at a time. Size: the largest
 * document's UTF-8 so far, at least 64 KiB once a write batch was encoded.
 */
export class ShardCommandEncoder {
  private utf8 = Buffer.allocUnsafe(0);

  encode(command: ShardCommandMessage): ArrayBuffer {
    return encodeWith(command, (builder, text) => this.createUtf8String(builder, text));
  }

  /**
   * builder.createString through the reused buffer: its own TextEncoder.encode allocated an ArrayBuffer
   * per document (tens of thousands per write batch, each swept by the garbage collector).
   */
  private createUtf8String(builder: flatbuffers.Builder, text: string): flatbuffers.Offset {
    // A UTF-16 unit is at most 3 UTF-8 bytes.
    if (text.length * 3 > this.utf8.length) this.utf8 = Buffer.allocUnsafe(Math.max(1 << 16, this.utf8.length * 2, text.length * 3));
    const written = this.utf8.write(text, 0, 'utf8');
    return builder.createString(this.utf8.subarray(0, written));
  }
}

/** One command, encoded without a reused buffer (tests, one-off commands). */
export function encodeShardCommand(command: ShardCommandMessage): ArrayBuffer {
  return encodeWith(command, (builder, text) => builder.createString(text));
}

function encodeWith(command: ShardCommandMessage, createUtf8String: (builder: flatbuffers.Builder, text: string) => flatbuffers.Offset): ArrayBuffer {
  const builder = new flatbuffers.Builder(initialBytes(command));
  const indexUid = builder.createString('indexUid' in command ? command.indexUid : '');
  let bodyType: fb.ShardCommandBody;
  let body: flatbuffers.Offset;
  switch (command.kind) {
    case 'writeBatch': {
      const ops = fb.WriteBatch.createOpsVector(builder, command.ops.map((op) => {
        const document = op.kind === 'upsert' ? createUtf8String(builder, op.document) : 0;
        const kind = op.kind === 'upsert' ? fb.DocumentOpKind.Upsert : fb.DocumentOpKind.Delete;
        return fb.DocumentOp.createDocumentOp(builder, kind, op.docId, document);
      }));
      bodyType = fb.ShardCommandBody.WriteBatch;
      body = fb.WriteBatch.createWriteBatch(builder, indexUid, command.shard, ops);
      break;
    }
    case 'reloadDocuments': {
      const docIds = fb.ReloadDocuments.createDocIdsVector(builder, command.docIds);
      bodyType = fb.ShardCommandBody.ReloadDocuments;
      body = fb.ReloadDocuments.createReloadDocuments(builder, indexUid, command.shard, docIds);
      break;
    }
    case 'loadIndex': {
      const settings = builder.createString(JSON.stringify(command.settings));
      bodyType = fb.ShardCommandBody.LoadIndex;
      body = fb.LoadIndex.createLoadIndex(builder, indexUid, command.shardCount, settings, command.keepShards);
      break;
    }
    case 'dropIndex':
      bodyType = fb.ShardCommandBody.DropIndex;
      body = fb.DropIndex.createDropIndex(builder, indexUid);
      break;
    case 'indexCommitted':
      bodyType = fb.ShardCommandBody.IndexCommitted;
      body = fb.IndexCommitted.createIndexCommitted(builder, indexUid, command.commitSeq);
      break;
    case 'saveSnapshots':
      bodyType = fb.ShardCommandBody.SaveSnapshots;
      body = fb.SaveSnapshots.createSaveSnapshots(builder, command.prepareSearch, command.untilSaved ?? false);
      break;
    case 'prepareSearch':
      bodyType = fb.ShardCommandBody.PrepareSearch;
      body = fb.PrepareSearch.createPrepareSearch(builder, indexUid);
      break;
  }
  return finishToTransferable(builder, fb.ShardCommand.createShardCommand(builder, command.commandId, bodyType, body));
}

/**
 * A write batch's size, about: its documents' UTF-16 lengths (UTF-8 bytes for ASCII text) and ~32
 * bytes per op. The builder doubles (copying) when it runs out; sized upfront, a batch of 50,000
 * documents skips ~15 of those copies.
 */
function initialBytes(command: ShardCommandMessage): number {
  if (command.kind !== 'writeBatch') return 1024;
  let bytes = 1024;
  for (const op of command.ops) bytes += 32 + (op.kind === 'upsert' ? op.document.length : 0);
  return bytes;
}

export function decodeShardCommand(message: ArrayBuffer | Uint8Array): ShardCommandMessage {
  const command = fb.ShardCommand.getRootAsShardCommand(byteBufferOf(message));
  const commandId = command.commandId();
  switch (command.bodyType()) {
    case fb.ShardCommandBody.WriteBatch: {
      const batch = command.body(new fb.WriteBatch()) as fb.WriteBatch;
      const ops: DocumentOpMessage[] = new Array(batch.opsLength());
      const reader = new fb.DocumentOp();
      for (let i = 0; i < ops.length; i++) {
        const op = batch.ops(i, reader)!;
        ops[i] = op.kind() === fb.DocumentOpKind.Upsert ? new EncodedUpsert(op.docId(), batch, i) : { kind: 'delete', docId: op.docId() };
      }
      return { kind: 'writeBatch', commandId, indexUid: batch.indexUid() ?? '', shard: batch.shard(), ops };
    }
    case fb.ShardCommandBody.ReloadDocuments: {
      const reload = command.body(new fb.ReloadDocuments()) as fb.ReloadDocuments;
      return { kind: 'reloadDocuments', commandId, indexUid: reload.indexUid() ?? '', shard: reload.shard(),
        docIds: Array.from(reload.docIdsArray() ?? []) };
    }
    case fb.ShardCommandBody.LoadIndex: {
      const load = command.body(new fb.LoadIndex()) as fb.LoadIndex;
      return { kind: 'loadIndex', commandId, indexUid: load.indexUid() ?? '', shardCount: load.shardCount(),
        settings: JSON.parse(load.settingsJson() ?? 'null'), keepShards: load.keepShards() };
    }
    case fb.ShardCommandBody.DropIndex: {
      const drop = command.body(new fb.DropIndex()) as fb.DropIndex;
      return { kind: 'dropIndex', commandId, indexUid: drop.indexUid() ?? '' };
    }
    case fb.ShardCommandBody.IndexCommitted: {
      const committed = command.body(new fb.IndexCommitted()) as fb.IndexCommitted;
      return { kind: 'indexCommitted', commandId, indexUid: committed.indexUid() ?? '', commitSeq: committed.commitSeq() };
    }
    case fb.ShardCommandBody.SaveSnapshots: {
      const save = command.body(new fb.SaveSnapshots()) as fb.SaveSnapshots;
      return { kind: 'saveSnapshots', commandId, prepareSearch: save.prepareSearch(), ...(save.untilSaved() ? { untilSaved: true } : {}) };
    }
    case fb.ShardCommandBody.PrepareSearch: {
      const prepare = command.body(new fb.PrepareSearch()) as fb.PrepareSearch;
      return { kind: 'prepareSearch', commandId, indexUid: prepare.indexUid() ?? '' };
    }
    default:
      throw new Error(`unknown shard command body type ${command.bodyType()}`);
  }
}

export function encodeShardAck(ack: ShardAckMessage): ArrayBuffer {
  const builder = new flatbuffers.Builder(128);
  const error = writeError(builder, ack.error);
  fb.ShardAck.startShardAck(builder);
  fb.ShardAck.addCommandId(builder, ack.commandId);
  if (error) fb.ShardAck.addError(builder, error);
  return finishToTransferable(builder, fb.ShardAck.endShardAck(builder));
}

export function decodeShardAck(message: ArrayBuffer | Uint8Array): ShardAckMessage {
  const ack = fb.ShardAck.getRootAsShardAck(byteBufferOf(message));
  return { commandId: ack.commandId(), error: readError(ack.error()) };
}

/**
 * An upsert whose JSON is decoded from the message when read: the worker reads each document once,
 * as it indexes it, so the text dies young instead of a whole batch of texts (tens of MB) decoded
 * upfront, surviving the garbage collections of the batch and being copied into the old generation.
 */
class EncodedUpsert {
  readonly kind = 'upsert';
  constructor(readonly docId: number, private readonly batch: fb.WriteBatch, private readonly at: number) {}

  get document(): string {
    return this.batch.ops(this.at)!.document() ?? '{}';
  }
}
