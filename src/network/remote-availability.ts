// Which remotes a node's network searches ask (Meilisearch v1.53's RemoteAvailability; main thread,
// owned by the node's NetworkNode). A remote that failed to answer a search (5xx, unreachable) is
// unavailable for 30 s, doubling on each new failure up to 5 min; `POST /network/control` with
// `statusChangeForRemote` marks one unavailable until marked available again (an operator draining a
// node). `GET /network` shows it as each remote's `status`.
//
// Where Skein differs: a remote unavailable after a failure is only tried last among its group's
// nodes (a group whose every node failed recently is still asked, then reported in `remoteErrors`),
// while Meilisearch leaves such a shard out of the answer; a remote marked unavailable through
// /network/control is never asked.

const BASE_MS = 30_000;
const MAX_MS = 5 * 60_000;
/** Names kept at most (a /network/control request names any string): /network's own bound on remotes. */
const MAX_NAMES = 1000;

interface Unavailability {
  since: number;
  /** null: until marked available again. */
  until: number | null;
}

export type RemoteStatus = 'available' | 'unavailable';

export class RemoteAvailability {
  private readonly unavailable = new Map<string, Unavailability>();

  constructor(private readonly now: () => number = Date.now) {}

  status(remote: string): RemoteStatus {
    return this.isAvailable(remote) ? 'available' : 'unavailable';
  }

  isAvailable(remote: string): boolean {
    const entry = this.unavailable.get(remote);
    if (entry === undefined) return true;
    if (entry.until !== null && this.now() > entry.until) {
      this.unavailable.delete(remote);
      return true;
    }
    return false;
  }

  /** Marked through /network/control: never asked until marked available. */
  isDrained(remote: string): boolean {
    return this.unavailable.get(remote)?.until === null;
  }

  /** A failed answer: 30 s, or twice the last period (≤ 5 min); a drained remote stays drained. */
  markUnavailable(remote: string): void {
    const entry = this.isAvailable(remote) ? undefined : this.unavailable.get(remote);
    const now = this.now();
    if (entry?.until === null) return;
    const period = entry === undefined ? BASE_MS : Math.min(MAX_MS, 2 * (entry.until! - entry.since));
    this.set(remote, { since: now, until: now + period });
  }

  markUnavailableIndefinitely(remote: string): void {
    this.set(remote, { since: this.now(), until: null });
  }

  markAvailable(remote: string): void {
    this.unavailable.delete(remote);
  }

  /** Temporarily unavailable after a failure (tried last), as opposed to drained or available. */
  isCoolingDown(remote: string): boolean {
    return !this.isAvailable(remote) && !this.isDrained(remote);
  }

  private set(remote: string, entry: Unavailability): void {
    if (!this.unavailable.has(remote) && this.unavailable.size >= MAX_NAMES) {
      // The oldest entry goes (a Map keeps insertion order).
      this.unavailable.delete(this.unavailable.keys().next().value!);
    }
    this.unavailable.delete(remote);
    this.unavailable.set(remote, entry);
  }
}
