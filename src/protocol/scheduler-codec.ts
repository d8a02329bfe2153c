// Messages between the front thread and the scheduler thread (enqueue requests, their answers,
// and cache invalidations). Low rate: one per write request.
import * as flatbuffers from 'flatbuffers';
import * as fb from './generated/protocol_generated.js';
import { byteBufferOf, finishToTransferable, readError, readStrings, writeError, writeStrings } from './flatbuffer-io.js';
import type { SchedulerMessage } from './messages.js';

export function encodeSchedulerMessage(message: SchedulerMessage): ArrayBuffer {
  const builder = new flatbuffers.Builder(512);
  let bodyType: fb.SchedulerMessageBody;
  let body: flatbuffers.Offset;
  switch (message.kind) {
    case 'enqueueTask': {
      const content = builder.createString(JSON.stringify(message.content));
      const enqueuedAt = message.log ? builder.createString(message.log.enqueuedAt) : 0;
      bodyType = fb.SchedulerMessageBody.EnqueueTask;
      body = fb.EnqueueTask.createEnqueueTask(builder, message.requestId, content, BigInt(message.log?.seq ?? 0), enqueuedAt);
      break;
    }
    case 'taskEnqueued': {
      const error = writeError(builder, message.error);
      const summary = message.summary === null ? 0 : builder.createString(JSON.stringify(message.summary));
      fb.TaskEnqueued.startTaskEnqueued(builder);
      fb.TaskEnqueued.addRequestId(builder, message.requestId);
      if (error) fb.TaskEnqueued.addError(builder, error);
      if (summary) fb.TaskEnqueued.addSummaryJson(builder, summary);
      bodyType = fb.SchedulerMessageBody.TaskEnqueued;
      body = fb.TaskEnqueued.endTaskEnqueued(builder);
      break;
    }
    case 'indexesChanged': {
      const uids = fb.IndexesChanged.createIndexUidsVector(builder, writeStrings(builder, message.indexUids));
      bodyType = fb.SchedulerMessageBody.IndexesChanged;
      body = fb.IndexesChanged.createIndexesChanged(builder, uids);
      break;
    }
    case 'keyCommand': {
      const command = builder.createString(JSON.stringify(message.command));
      bodyType = fb.SchedulerMessageBody.KeyCommand;
      body = fb.KeyCommand.createKeyCommand(builder, message.requestId, command, BigInt(message.logSeq ?? 0));
      break;
    }
    case 'keyCommandResult': {
      const error = writeError(builder, message.error);
      const record = message.record === null ? 0 : builder.createString(JSON.stringify(message.record));
      fb.KeyCommandResult.startKeyCommandResult(builder);
      fb.KeyCommandResult.addRequestId(builder, message.requestId);
      if (error) fb.KeyCommandResult.addError(builder, error);
      if (record) fb.KeyCommandResult.addRecordJson(builder, record);
      bodyType = fb.SchedulerMessageBody.KeyCommandResult;
      body = fb.KeyCommandResult.endKeyCommandResult(builder);
      break;
    }
    case 'updateFeatures': {
      const patch = builder.createString(JSON.stringify(message.patch));
      bodyType = fb.SchedulerMessageBody.UpdateFeatures;
      body = fb.UpdateFeatures.createUpdateFeatures(builder, message.requestId, patch, BigInt(message.logSeq ?? 0));
      break;
    }
    case 'featuresUpdated': {
      const error = writeError(builder, message.error);
      const features = message.features === null ? 0 : builder.createString(JSON.stringify(message.features));
      fb.FeaturesUpdated.startFeaturesUpdated(builder);
      fb.FeaturesUpdated.addRequestId(builder, message.requestId);
      if (error) fb.FeaturesUpdated.addError(builder, error);
      if (features) fb.FeaturesUpdated.addFeaturesJson(builder, features);
      bodyType = fb.SchedulerMessageBody.FeaturesUpdated;
      body = fb.FeaturesUpdated.endFeaturesUpdated(builder);
      break;
    }
    case 'prepareShutdown':
      bodyType = fb.SchedulerMessageBody.PrepareShutdown;
      body = fb.PrepareShutdown.createPrepareShutdown(builder, message.requestId);
      break;
    case 'shutdownPrepared':
      bodyType = fb.SchedulerMessageBody.ShutdownPrepared;
      body = fb.ShutdownPrepared.createShutdownPrepared(builder, message.requestId);
      break;
  }
  return finishToTransferable(builder, fb.SchedulerMessage.createSchedulerMessage(builder, bodyType, body));
}

export function decodeSchedulerMessage(buffer: ArrayBuffer | Uint8Array): SchedulerMessage {
  const message = fb.SchedulerMessage.getRootAsSchedulerMessage(byteBufferOf(buffer));
  switch (message.bodyType()) {
    case fb.SchedulerMessageBody.EnqueueTask: {
      const enqueue = message.body(new fb.EnqueueTask()) as fb.EnqueueTask;
      const logSeq = Number(enqueue.logSeq());
      return { kind: 'enqueueTask', requestId: enqueue.requestId(), content: JSON.parse(enqueue.contentJson() ?? 'null'),
        ...(logSeq > 0 ? { log: { seq: logSeq, enqueuedAt: enqueue.enqueuedAt() ?? '' } } : {}) };
    }
    case fb.SchedulerMessageBody.TaskEnqueued: {
      const enqueued = message.body(new fb.TaskEnqueued()) as fb.TaskEnqueued;
      const summary = enqueued.summaryJson();
      return { kind: 'taskEnqueued', requestId: enqueued.requestId(), error: readError(enqueued.error()),
        summary: summary ? JSON.parse(summary) : null };
    }
    case fb.SchedulerMessageBody.IndexesChanged: {
      const changed = message.body(new fb.IndexesChanged()) as fb.IndexesChanged;
      return { kind: 'indexesChanged', indexUids: readStrings(changed.indexUidsLength(), (i) => changed.indexUids(i)) };
    }
    case fb.SchedulerMessageBody.KeyCommand: {
      const command = message.body(new fb.KeyCommand()) as fb.KeyCommand;
      const logSeq = Number(command.logSeq());
      return { kind: 'keyCommand', requestId: command.requestId(), command: JSON.parse(command.commandJson() ?? 'null'), ...(logSeq > 0 ? { logSeq } : {}) };
    }
    case fb.SchedulerMessageBody.KeyCommandResult: {
      const result = message.body(new fb.KeyCommandResult()) as fb.KeyCommandResult;
      const record = result.recordJson();
      return { kind: 'keyCommandResult', requestId: result.requestId(), error: readError(result.error()),
        record: record ? JSON.parse(record) : null };
    }
    case fb.SchedulerMessageBody.UpdateFeatures: {
      const update = message.body(new fb.UpdateFeatures()) as fb.UpdateFeatures;
      const logSeq = Number(update.logSeq());
      return { kind: 'updateFeatures', requestId: update.requestId(), patch: JSON.parse(update.patchJson() ?? '{}'), ...(logSeq > 0 ? { logSeq } : {}) };
    }
    case fb.SchedulerMessageBody.FeaturesUpdated: {
      const updated = message.body(new fb.FeaturesUpdated()) as fb.FeaturesUpdated;
      const features = updated.featuresJson();
      return { kind: 'featuresUpdated', requestId: updated.requestId(), error: readError(updated.error()),
        features: features ? JSON.parse(features) : null };
    }
    case fb.SchedulerMessageBody.PrepareShutdown:
      return { kind: 'prepareShutdown', requestId: (message.body(new fb.PrepareShutdown()) as fb.PrepareShutdown).requestId() };
    case fb.SchedulerMessageBody.ShutdownPrepared:
      return { kind: 'shutdownPrepared', requestId: (message.body(new fb.ShutdownPrepared()) as fb.ShutdownPrepared).requestId() };
    default:
      throw new Error(`unknown scheduler message body type ${message.bodyType()}`);
  }
}
