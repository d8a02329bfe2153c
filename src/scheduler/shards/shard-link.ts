// The scheduler's side of the MessagePorts to the shard workers: sends ShardCommand flatbuffers and
// resolves each command when the owning worker answers the ShardAck with the same commandId.
//
// A worker that dies closes its end of the port: the commands it was sent and did not acknowledge
// fail at once (nothing would ever answer them), and so does every command for it until the front
// hands over the port of its replacement (replace()). `onWorkerStopped` tells the scheduler, which
// holds its batches meanwhile (src/scheduler/worker.ts).
import type { MessagePort } from 'node:worker_threads';
import { SkeinError, fromBody } from '../../errors/index.js';
import type { ShardCommandMessage } from '../../protocol/messages.js';
import { decodeShardAck, ShardCommandEncoder } from '../../protocol/shard-command-codec.js';

/** A shard command without its id; the link numbers commands itself. */
export type ShardCommand = ShardCommandMessage extends infer C ? C extends ShardCommandMessage ? Omit<C, 'commandId'> : never : never;

export interface ShardCommandSender {
  readonly workerCount: number;
  /** Resolves when worker `worker` acked the command; rejects with the SkeinError of a failed ack. */
  send(worker: number, command: ShardCommand): Promise<void>;
  /** false while the worker is dead and not replaced yet (its replacement loads the committed state itself). */
  isUp?(worker: number): boolean;
}

interface Pending {
  worker: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class ShardLink implements ShardCommandSender {
  private nextCommandId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly ports: MessagePort[] = [];
  private readonly down = new Set<number>();
  private unrefed = false;
  private readonly encoder = new ShardCommandEncoder();
  /** Called once per death of a worker (its port closed), before its commands in flight are failed. */
  onWorkerStopped: (worker: number) => void = () => {};

  constructor(ports: readonly MessagePort[]) {
    ports.forEach((port, worker) => this.attach(worker, port));
  }

  get workerCount(): number {
    return this.ports.length;
  }

  isUp(worker: number): boolean {
    return !this.down.has(worker);
  }

  send(worker: number, command: ShardCommand): Promise<void> {
    if (this.down.has(worker)) {
      return Promise.reject(SkeinError.withoutStack('internal', `Shard worker ${worker} stopped and is being replaced.`));
    }
    const commandId = this.nextCommandId++;
    const buffer = this.encoder.encode({ ...command, commandId } as ShardCommandMessage);
    return new Promise<void>((resolve, reject) => {
      this.pending.set(commandId, { worker, resolve, reject });
      this.ports[worker]!.postMessage(buffer, [buffer]);
    });
  }

  /** The worker died (its port closed, or the front says so first): what it was sent fails now. */
  stopped(worker: number): void {
    if (this.down.has(worker)) return;
    this.down.add(worker);
    this.onWorkerStopped(worker);
    const error = SkeinError.withoutStack('internal', `Shard worker ${worker} stopped before acknowledging the command.`);
    for (const [commandId, waiting] of this.pending) {
      if (waiting.worker !== worker) continue;
      this.pending.delete(commandId);
      waiting.reject(error);
    }
  }

  /** The port to the worker's replacement: commands go there from now on (they wait in it while the thread loads). */
  replace(worker: number, port: MessagePort): void {
    this.stopped(worker);
    this.attach(worker, port);
    this.down.delete(worker);
  }

  private attach(worker: number, port: MessagePort): void {
    this.ports[worker] = port;
    port.on('message', (message: ArrayBuffer | Uint8Array) => this.onAck(message));
    port.on('close', () => {
      if (this.ports[worker] === port) this.stopped(worker);
    });
    if (this.unrefed) port.unref();
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
    this.unrefed = true;
    for (const port of this.ports) port.unref();
  }
}
