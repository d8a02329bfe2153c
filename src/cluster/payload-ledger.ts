// Cluster mode: the payloads this node put in the Object Store (documents above the inline limit), kept
// in a file of the data folder (`cluster-payloads.jsonl`, one JSON line per change, rewritten whole when
// entries go) so that a restart does not leak them: each is deleted once compaction purged its task.
// A payload whose publish was not acknowledged (a crash, or an error answered to the client: the ack may
// have been lost) gets the stream's last sequence as its bound: its task, if any, is at or below it.
// Owned by ClusterWrites (main thread).
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const LEDGER_FILE = 'cluster-payloads.jsonl';
/** Left by rejoin.ts in the new data folder: the entries of the folder it moved aside, merged at the next release. */
export const CARRIED_LEDGER_FILE = 'cluster-payloads.carried.jsonl';

export class PayloadLedger {
  /** Payload name -> the sequence of its task (or a bound), null while its publish is in flight. */
  private readonly entries = new Map<string, number | null>();
  private readonly path: string;
  /** File writes one at a time: an append between a rewrite's write and rename would be lost. */
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly dbPath: string) {
    this.path = join(dbPath, LEDGER_FILE);
    this.readInto(this.path);
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Entries whose publish was not acknowledged (`name`, or every one at start, when none is in flight):
   * bounded by the stream's last sequence now.
   */
  async boundUnacknowledged(lastSeq: number, name: string | null = null): Promise<void> {
    for (const [entry, seq] of this.entries) {
      if (seq !== null || (name !== null && entry !== name)) continue;
      this.entries.set(entry, lastSeq);
      await this.append({ n: entry, s: lastSeq });
    }
  }

  /** Before the payload is put: a crash after the put leaves it listed. */
  async putting(name: string): Promise<void> {
    this.entries.set(name, null);
    await this.append({ n: name });
  }

  async published(name: string, seq: number): Promise<void> {
    this.entries.set(name, seq);
    await this.append({ n: name, s: seq });
  }

  /** Names of the payloads whose task is below `firstSeq` (purged: nobody reads them any more). */
  below(firstSeq: number): string[] {
    this.mergeCarried();
    return [...this.entries].filter(([, seq]) => seq !== null && seq < firstSeq).map(([name]) => name);
  }

  async remove(names: string[]): Promise<void> {
    if (names.length === 0) return;
    for (const name of names) this.entries.delete(name);
    await this.rewrite();
  }

  private mergeCarried(): void {
    const carried = join(this.dbPath, CARRIED_LEDGER_FILE);
    if (!existsSync(carried)) return;
    this.readInto(carried);
    void this.rewrite().then(() => rm(carried, { force: true }));
  }

  private readInto(path: string): void {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const { n, s } = JSON.parse(line) as { n: string; s?: number };
        if (typeof s === 'number') this.entries.set(n, s);
        else if (!this.entries.has(n)) this.entries.set(n, null);
      } catch {
        // a line cut by a crash: the entries before it stand
      }
    }
  }

  private serially(write: () => Promise<void>): Promise<void> {
    const next = this.writes.then(write);
    this.writes = next.catch(() => {});
    return next;
  }

  private append(entry: Record<string, unknown>): Promise<void> {
    return this.serially(() => this.appendNow(entry));
  }

  private rewrite(): Promise<void> {
    return this.serially(() => this.rewriteNow());
  }

  private async appendNow(entry: Record<string, unknown>): Promise<void> {
    const file = await open(this.path, 'a');
    try {
      await file.write(`${JSON.stringify(entry)}\n`);
      await file.datasync();
    } finally {
      await file.close();
    }
  }

  private async rewriteNow(): Promise<void> {
    const partial = `${this.path}.partial`;
    await writeFile(partial, [...this.entries].map(([n, s]) => `${JSON.stringify(s === null ? { n } : { n, s })}\n`).join(''));
    renameSync(partial, this.path);
  }
}
