// The scheduler's side of the MessagePorts to the shard workers: sends ShardCommand flatbuffers and
// resolves each command when the owning worker answers the ShardAck with the same commandId.
import type { MessagePort } from 'node:worker_threads';
import { fromBody } from '../errors/index.js';
import type { ShardCommandMessage } from '../protocol/messages.js';
import { decodeShardAck, encodeShardCommand } from '../protocol/shard-command-codec.js';

/** A shard command without its id; the link numbers commands itself. */
export type ShardCommand = ShardCommandMessage extends infer C ? C extends ShardCommandMessage ? Omit<C, 'commandId'> : never : never;

export interface ShardCommandSender {
  readonly workerCount: number;
  /** Resolves when worker `worker` acked the command; rejects with the SkeinError of a failed ack. */
  send(worker: number, command: ShardCommand): Promise<void>;
}

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class ShardLink implements ShardCommandSender {
  private nextCommandId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly ports: readonly MessagePort[]) {
    for (const port of ports) {
      port.on('message', (message: ArrayBuffer | Uint8Array) => this.onAck(message));
    }
  }

  get workerCount(): number {
    return this.ports.length;
  }

  send(worker: number, command: ShardCommand): Promise<void> {
    const commandId = this.nextCommandId++;
    const buffer = encodeShardCommand({ ...command, commandId } as ShardCommandMessage);
    return new Promise<void>((resolve, reject) => {
      this.pending.set(commandId, { resolve, reject });
      this.ports[worker].postMessage(buffer, [buffer]);
    });
  }

  private onAck(message: ArrayBuffer | Uint8Array): void {
    let ack;
    try {
      ack = decodeShardAck(message);
    } catch {
      return; // not an ack; nothing is waiting for it
    }
    const waiting = this.pending.get(ack.commandId);
    if (!waiting) return;
    this.pending.delete(ack.commandId);
    if (ack.error) waiting.reject(fromBody(ack.error));
    else waiting.resolve();
  }

  /** Lets the thread exit once the ports are the only thing left. */
  unref(): void {
    for (const port of this.ports) port.unref();
  }
}
