// A shard's cache of costly search structures within a byte budget (prefix pair tables, term
// derivations) that does not thrash on loops. Least recently used eviction did: the bench's queries
// come back in a loop of 10,000, and once what one loop needs outgrew the budget, every entry was
// evicted before its key came back (a million-document shard rebuilt ~230 prefix tables per 3,800
// prefix queries, half their time, and missed the derivation cache on nearly every query).
// Here each key has a worth, the work its lookups needed (or saved), halved now and then so that
// what was asked long ago fades; a new entry gets in only by evicting entries worth less per byte by
// a margin, otherwise it is not kept. In a loop the same entries thus stay: those saving the most
// work per byte. (lru-cache, used before, has no such admission; this is GreedyDual-Size-Frequency
// with an admission test, in a few lines.)

export interface WorthPerByteCacheOptions<T> {
  maxBytes: number;
  /** Bytes an entry holds (read again on each hit when `sizeChanges`: a table may grow as bitmaps of its long runs are made). */
  sizeOf: (value: T) => number;
  sizeChanges?: boolean;
  /** Keys without an entry whose worth is remembered (the most recently asked). */
  maxRemembered?: number;
  /**
   * Entries held at most, whatever their bytes (default: no bound): each is objects the collector
   * marks, and small entries under a large byte budget grew the old generation, whose full
   * collections were a source of the search tail. Over it, the least worth per byte go as for bytes.
   */
  maxEntries?: number;
  /** Called with each value as it leaves the cache (evicted, dropped, replaced, cleared). */
  onLeave?: (value: T) => void;
}

/** Worths halve after this many lookups (a few of the bench's loops). */
export const WORTH_HALF_LIFE_LOOKUPS = 16_384;
/**
 * An entry comes in only by evicting entries worth this many times less per byte than it: two keys
 * of about equal worth would otherwise evict each other in turn, each time one of them is asked.
 */
export const ADMISSION_MARGIN = 2;
/**
 * An admission that has to evict frees this share of the budget more than it needs (still only
 * entries worth less per byte than the newcomer by the margin), so the next newcomers find room
 * without a pass over every entry: with a pass per admission, a stream of unique queries (every term
 * new, the derivation cache full of tens of thousands of small entries) spent 30% of the shard
 * worker's time in these passes and fell to a twentieth of its throughput (bench/cold-start-probe.mjs).
 */
export const EVICTION_SLACK = 1 / 16;

export interface Held<T> {
  value: T;
  bytes: number;
  /** In the cache's scaled unit (see `unit`). */
  worth: number;
  /** Work a lookup adds when its caller does not tell (what computing the entry took). */
  work: number;
}

export class WorthPerByteCache<T> {
  maxBytes: number;
  private readonly held = new Map<string, Held<T>>();
  /** Worths of keys without an entry (insertion order = least recently asked first). */
  private readonly worths = new Map<string, number>();
  private heldBytes = 0;
  private lookups = 0;
  /**
   * Worths are held multiplied by this power of two, doubled at each aging instead of halving every
   * worth held and remembered (a pass over 80,000 derivations took 20-70 ms of a search under unique
   * queries); the public worths are true ones (held / unit, exact in binary floating point).
   */
  private unit = 1;
  /**
   * At most the lowest worth per byte held (worths only grow between agings, which halve it too): a
   * newcomer below it times the margin is refused without looking at every entry.
   */
  private floor = 0;
  /**
   * The last refused admission (worth per byte, bytes): one no denser and no smaller is refused too,
   * without a pass, until entries or free bytes change (set, evict, age, clear).
   */
  private refusedDensity = -1;
  private refusedBytes = Infinity;
  private readonly sizeOf: (value: T) => number;
  private readonly sizeChanges: boolean;
  private readonly maxRemembered: number;
  private readonly maxEntries: number;
  private readonly onLeave: ((value: T) => void) | null;

  constructor(options: WorthPerByteCacheOptions<T>) {
    this.maxBytes = options.maxBytes;
    this.sizeOf = options.sizeOf;
    this.sizeChanges = options.sizeChanges ?? false;
    this.maxRemembered = options.maxRemembered ?? 8192;
    this.maxEntries = options.maxEntries ?? Infinity;
    this.onLeave = options.onLeave ?? null;
  }

  get byteLength(): number {
    return this.heldBytes;
  }

  get size(): number {
    return this.held.size;
  }

  /** The values held (reports, tests). */
  *values(): IterableIterator<T> {
    for (const entry of this.held.values()) yield entry.value;
  }

  /** The keys and values held. */
  *entries(): IterableIterator<[string, T]> {
    for (const [key, entry] of this.held) yield [key, entry.value];
  }

  has(key: string): boolean {
    return this.held.has(key);
  }

  /** Forgets every entry and worth. */
  clear(): void {
    const onLeave = this.onLeave;
    if (onLeave !== null) for (const entry of this.held.values()) onLeave(entry.value);
    if (this.held.size > 0) this.held.clear();
    if (this.worths.size > 0) this.worths.clear();
    this.heldBytes = 0;
    this.floor = 0;
    this.forgetRefusal();
  }

  private forgetRefusal(): void {
    this.refusedDensity = -1;
    this.refusedBytes = Infinity;
  }

  /**
   * The key's entry, if held; a lookup adds `work` (what its query needs without the entry; default:
   * what computing it took) to its worth.
   */
  get(key: string, work?: number): T | undefined {
    this.age();
    const entry = this.held.get(key);
    if (entry === undefined) return undefined;
    entry.worth += (work ?? entry.work) * this.unit;
    if (this.sizeChanges) {
      const bytes = this.sizeOf(entry.value);
      this.heldBytes += bytes - entry.bytes;
      // Grown, it is worth less per byte than the floor may say.
      if (bytes > entry.bytes) this.floor = Math.min(this.floor, densityOf({ ...entry, bytes }));
      entry.bytes = bytes;
    }
    return entry.value;
  }

  /** The worth of a key without an entry, after adding `work` to it. */
  addWork(key: string, work: number): number {
    return this.addScaledWorth(key, work * this.unit) / this.unit;
  }

  private addScaledWorth(key: string, scaled: number): number {
    const worth = (this.worths.get(key) ?? 0) + scaled;
    this.worths.delete(key);
    this.worths.set(key, worth);
    if (this.worths.size > this.maxRemembered) this.worths.delete(this.worths.keys().next().value!);
    return worth;
  }

  /**
   * Whether an entry of about `bytes` worth `worth` may come in: there is room, or room can be made
   * by evicting entries worth ADMISSION_MARGIN times less per byte (evicted now).
   */
  admit(worth: number, bytes: number): boolean {
    const freeBytes = this.maxBytes - this.heldBytes;
    // Entries to make room for besides bytes (the newcomer's place under maxEntries).
    const entriesOver = this.held.size + 1 - this.maxEntries;
    if (bytes <= freeBytes && entriesOver <= 0) return true;
    if (bytes > this.maxBytes) return false;
    const density = worth * this.unit / bytes / ADMISSION_MARGIN;
    if (density <= this.floor) return false;
    if (density <= this.refusedDensity && bytes >= this.refusedBytes) return false;
    let floor = Infinity;
    let victimBytes = 0;
    const victims: [string, Held<T>][] = [];
    for (const held of this.held) {
      const entryDensity = densityOf(held[1]);
      floor = Math.min(floor, entryDensity);
      if (entryDensity < density) {
        victims.push(held);
        victimBytes += held[1].bytes;
      }
    }
    this.floor = floor;
    if (freeBytes + victimBytes < bytes || victims.length < entriesOver) {
      this.refusedDensity = density;
      this.refusedBytes = bytes;
      return false;
    }
    // The victims least worth per byte first, up to room for the next newcomers too (EVICTION_SLACK),
    // in bytes and, when full by count, in entries: the longer of the two runs (both are prefixes of
    // the same order).
    const wanted = bytes + this.maxBytes * EVICTION_SLACK;
    let { evicted, next } = leastDenseCovering(victims, wanted - freeBytes);
    if (entriesOver > 0 && evicted.length < entriesOver + Math.floor(this.maxEntries * EVICTION_SLACK)) {
      ({ evicted, next } = leastDenseCovering(victims, entriesOver + Math.floor(this.maxEntries * EVICTION_SLACK), () => 1));
    }
    for (const [key] of evicted) this.evict(key);
    // The floor among those left: the next victim, or else none is below `density`.
    this.floor = next === null ? density : densityOf(next);
    return true;
  }

  /** Holds the entry (after admit, or handed over): then the others worth least per byte go while over budget. */
  set(key: string, value: T, worth?: number, work = 0): void {
    const known = this.held.get(key);
    if (known !== undefined) this.heldBytes -= known.bytes;
    if (known !== undefined && known.value !== value) this.onLeave?.(known.value);
    const scaled = worth === undefined ? this.worths.get(key) ?? 0 : worth * this.unit;
    this.worths.delete(key);
    const bytes = this.sizeOf(value);
    const entry = { value, bytes, worth: scaled, work };
    this.held.set(key, entry);
    this.heldBytes += bytes;
    this.floor = Math.min(this.floor, densityOf(entry));
    this.forgetRefusal();
    if (this.heldBytes <= this.maxBytes && this.held.size <= this.maxEntries) return;
    const byDensity = [...this.held].filter(([other]) => other !== key).sort((a, b) => densityOf(a[1]) - densityOf(b[1]));
    for (const [victim] of byDensity) {
      if (this.heldBytes <= this.maxBytes && this.held.size <= this.maxEntries) break;
      this.evict(victim);
    }
  }

  /**
   * Keeps the entry just computed for a key without one if admitted; `work(bytes)`: what computing it
   * took (each later lookup adds as much to its worth).
   */
  offer(key: string, value: T, work: (bytes: number) => number): void {
    const bytes = this.sizeOf(value);
    const unitWork = work(bytes);
    const worth = this.addWork(key, unitWork);
    if (this.admit(worth, bytes)) this.set(key, value, worth, unitWork);
  }

  /** Drops the key's entry if held (it went stale); the key keeps its worth, as an evicted one. */
  drop(key: string): void {
    if (this.held.has(key)) this.evict(key);
  }

  /** Drops the entry; the key keeps its worth (it comes back in when worth it again). */
  private evict(key: string): void {
    const entry = this.held.get(key)!;
    this.held.delete(key);
    this.heldBytes -= entry.bytes;
    this.onLeave?.(entry.value);
    this.addScaledWorth(key, entry.worth);
    this.forgetRefusal();
  }

  private age(): void {
    if (++this.lookups < WORTH_HALF_LIFE_LOOKUPS) return;
    this.lookups = 0;
    // Every worth halves against what is added from now on (the floor, in the same unit, stays).
    this.unit *= 2;
    if (this.unit >= RESCALE_AT) this.rescale();
    this.forgetRefusal();
  }

  /** Back to unit 1 before the scaled worths could overflow (once per 2^600 agings' worth of doublings). */
  private rescale(): void {
    const unit = this.unit;
    for (const entry of this.held.values()) entry.worth /= unit;
    for (const [key, worth] of this.worths) this.worths.set(key, worth / unit);
    this.floor /= unit;
    this.unit = 1;
  }
}

/** Past this unit the worths are divided back (far from overflow: worths are below 2^400 in true units). */
const RESCALE_AT = 2 ** 600;

/**
 * The fewest of `victims` least worth per byte (ties in their order) whose bytes reach `needed`, all
 * of them if they do not; and the first victim left after them (null: none). The same choice as
 * sorting every victim by density, in about linear time: victims are put in buckets by their density's
 * logarithm (BUCKETS_PER_OCTAVE per power of two: the derivations' densities span a few), and only the buckets evicted and the one where `needed` is reached are sorted,
 * each stably (a sort of every victim, 80,000 derivations, held one admission 80-300 ms under unique
 * queries; eviction frees a sixteenth of the budget, a few thousand of them).
 */
const BUCKETS_PER_OCTAVE = 64;

export function leastDenseCovering<T>(victims: [string, Held<T>][], needed: number,
  sizeOf: (held: Held<T>) => number = (held) => held.bytes): { evicted: [string, Held<T>][]; next: Held<T> | null } {
  const buckets = new Map<number, [string, Held<T>][]>();
  for (const victim of victims) {
    const density = densityOf(victim[1]);
    const exponent = density > 0 ? Math.floor(Math.log2(density) * BUCKETS_PER_OCTAVE) : -Infinity;
    const bucket = buckets.get(exponent);
    if (bucket === undefined) buckets.set(exponent, [victim]);
    else bucket.push(victim);
  }
  const exponents = [...buckets.keys()].sort((a, b) => a - b);
  const evicted: [string, Held<T>][] = [];
  let freed = 0;
  for (let b = 0; b < exponents.length; b++) {
    const bucket = buckets.get(exponents[b]!)!;
    let bucketBytes = 0;
    for (const victim of bucket) bucketBytes += sizeOf(victim[1]);
    bucket.sort((x, y) => densityOf(x[1]) - densityOf(y[1]));
    if (freed + bucketBytes < needed) {
      for (const victim of bucket) evicted.push(victim);
      freed += bucketBytes;
      continue;
    }
    // needed is reached in this bucket.
    let k = 0;
    while (freed < needed && k < bucket.length) {
      freed += sizeOf(bucket[k]![1]);
      evicted.push(bucket[k++]!);
    }
    if (k < bucket.length) return { evicted, next: bucket[k]![1] };
    return { evicted, next: b + 1 < exponents.length ? minimumDensity(buckets.get(exponents[b + 1]!)!) : null };
  }
  return { evicted, next: null };
}

function minimumDensity<T>(bucket: [string, Held<T>][]): Held<T> {
  let best = bucket[0]![1];
  for (const [, held] of bucket) if (densityOf(held) < densityOf(best)) best = held;
  return best;
}

function densityOf(entry: Held<unknown>): number {
  return entry.worth / Math.max(1, entry.bytes);
}
