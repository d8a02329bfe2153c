// The shard caches' memory policy (prefix pair tables, derivations): entries come in only while there
// is room or by evicting entries worth less per byte, so that a loop of keys bigger than the budget
// keeps the same entries instead of evicting each one before it comes back (least recently used did).
import test from 'ava';
import { ADMISSION_MARGIN, leastDenseCovering, WorthPerByteCache, WORTH_HALF_LIFE_LOOKUPS, type Held } from '../../src/shard/search/worth-per-byte-cache.js';
import { randomFrom } from './seeded-lcg.js';
import { derivationCacheBytes } from '../../src/shard/shard-caches.js';

class FakeTable {
  constructor(public byteLength: number) {}
}

function newBudget(maxBytes: number): WorthPerByteCache<FakeTable> {
  return new WorthPerByteCache<FakeTable>({ maxBytes, sizeOf: (table) => table.byteLength, sizeChanges: true });
}

/** What the prefix tables do on a query: use the table, or count the reads and build it when admitted. */
function ask(budget: WorthPerByteCache<FakeTable>, prefix: string, reads: number, bytes: number): 'hit' | 'built' | 'refused' {
  if (budget.get(prefix, reads) !== undefined) return 'hit';
  const value = budget.addWork(prefix, reads);
  if (!budget.admit(value, bytes)) return 'refused';
  budget.set(prefix, new FakeTable(bytes));
  return 'built';
}

test('tables come in while there is room, and their bytes are counted', (t) => {
  const budget = newBudget(1000);
  t.is(ask(budget, 'a', 10, 400), 'built');
  t.is(ask(budget, 'b', 10, 400), 'built');
  t.is(ask(budget, 'a', 10, 400), 'hit');
  t.is(budget.byteLength, 800);
  t.true(budget.has('a') && budget.has('b'));
});

test('a loop of prefixes bigger than the budget keeps the same tables: no rebuild per turn', (t) => {
  const budget = newBudget(1000);
  const prefixes = ['a', 'b', 'c', 'd', 'e'];
  let builds = 0;
  for (let turn = 0; turn < 50; turn++) {
    for (const prefix of prefixes) if (ask(budget, prefix, 100, 300) === 'built') builds++;
  }
  // Three tables fit; least recently used would have rebuilt a table at every ask (250 builds).
  t.true(builds <= 5, `${builds} builds`);
  t.is(budget.size, 3);
  t.true(budget.byteLength <= 1000);
});

test('a prefix saving more reads per byte evicts the tables worth less, and only by a margin', (t) => {
  const budget = newBudget(1000);
  t.is(ask(budget, 'cheap', 10, 600), 'built');
  t.is(ask(budget, 'small', 10, 300), 'built');
  // Worth about as much per byte as 'cheap': refused (the two would evict each other in turn).
  t.is(ask(budget, 'peer', 10 * (ADMISSION_MARGIN - 0.5), 600), 'refused');
  t.true(budget.has('cheap'));
  // Much more per byte: 'cheap' goes, 'small' (worth more per byte than the newcomer's margin) stays.
  t.is(ask(budget, 'valuable', 1000, 600), 'built');
  t.false(budget.has('cheap'));
  t.true(budget.has('small'));
  t.true(budget.has('valuable'));
  t.is(budget.byteLength, 900);
});

test('an evicted prefix keeps its value and comes back once its queries are worth it again', (t) => {
  const budget = newBudget(1000);
  t.is(ask(budget, 'old', 50, 800), 'built');
  t.is(ask(budget, 'new', 5000, 800), 'built');
  t.false(budget.has('old'));
  // 'old' remembered 50 reads; asked often enough, it evicts 'new' once 'new' is no longer asked.
  let outcome = 'refused';
  for (let k = 0; k < 1000 && outcome === 'refused'; k++) outcome = ask(budget, 'old', 100, 800);
  t.is(outcome, 'built');
  t.false(budget.has('new'));
});

test('values fade: what was asked long ago gives way to what is asked now', (t) => {
  const budget = newBudget(1000);
  t.is(ask(budget, 'past', 1_000_000, 800), 'built');
  let outcome = 'refused';
  let asks = 0;
  for (; asks < 40 * WORTH_HALF_LIFE_LOOKUPS && outcome === 'refused'; asks++) outcome = ask(budget, 'present', 10, 800);
  t.is(outcome, 'built');
  t.false(budget.has('past'));
  // Without halving it would take ~200,000 asks of 10 reads to outweigh a million by the margin.
  t.true(asks < 200_000, `${asks} asks`);
});

test('a table that grows (bitmaps of its long runs) is counted at its new size, and set keeps the budget', (t) => {
  const budget = newBudget(1000);
  const grows = new FakeTable(300);
  budget.set('grows', grows, 100);
  grows.byteLength = 500;
  budget.get('grows', 1);
  t.is(budget.byteLength, 500);
  budget.set('low', new FakeTable(400), 0);
  budget.set('big', new FakeTable(400), 50);
  // Over budget after 'big': the lowest value per byte ('low') went.
  t.false(budget.has('low'));
  t.true(budget.byteLength <= 1000);
  t.false(budget.admit(1e9, 2000), 'bigger than the whole budget');
  budget.clear();
  t.is(budget.byteLength, 0);
  t.is(budget.size, 0);
});

test('offer keeps computed entries while they fit, then only those asked more often (each lookup adds what computing it took)', (t) => {
  const cache = new WorthPerByteCache<FakeTable>({ maxBytes: 1000, sizeOf: (table) => table.byteLength });
  const lookup = (key: string): 'hit' | 'miss' => {
    if (cache.get(key) !== undefined) return 'hit';
    cache.offer(key, new FakeTable(250), (bytes) => bytes);
    return 'miss';
  };
  // A loop of 8 keys over room for 4: the first 4 stay, and hit on every later turn.
  let hits = 0;
  for (let turn = 0; turn < 20; turn++) for (const key of 'abcdefgh') if (lookup(key) === 'hit') hits++;
  t.is(cache.size, 4);
  t.is(hits, 19 * 4);
  // A key asked many times as often gets in.
  let outcome = 'miss';
  for (let k = 0; k < 200 && outcome === 'miss'; k++) outcome = lookup('hot');
  t.is(outcome, 'hit');
  t.true(cache.byteLength <= 1000);
});

test('the derivation cache budget follows the shard size above its floor', (t) => {
  t.is(derivationCacheBytes(0), 128 * 2 ** 20);
  t.is(derivationCacheBytes(100_000), 128 * 2 ** 20);
  t.is(derivationCacheBytes(1_000_000), 400_000_000);
});

test('a stream of keys that never come back, into a full cache of many small entries, costs no pass over every entry per key', (t) => {
  // What unique queries do to the derivation cache (ShardIndex.cachedDerive): every term new, looked
  // up then offered once, entries of varied sizes and work, worths halving as lookups go by.
  const entries = 5000;
  const maxBytes = entries * 1000;
  const cache = new WorthPerByteCache<FakeTable>({ maxBytes, sizeOf: (table) => table.byteLength });
  let seed = 7;
  const next = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const hot = new FakeTable(1000);
  cache.offer('hot', hot, (bytes) => bytes + 1024);
  let admitted = 0;
  const startedAt = performance.now();
  for (let k = 0; k < 60_000; k++) {
    const key = `once ${k}`;
    if (cache.get(key) === undefined) {
      const words = 1 + next(20);
      cache.offer(key, new FakeTable(200 + next(1800)), (bytes) => bytes + 1024 * words);
      if (cache.has(key)) admitted++;
    }
    t.is(cache.get('hot'), hot);
  }
  const elapsed = performance.now() - startedAt;
  // A pass over the ~5,000 entries (and a sort of the victims) per offer took ~22 s here, ~0.5 s without.
  t.true(elapsed < 4000, `${elapsed.toFixed(0)} ms`);
  t.true(cache.byteLength <= maxBytes);
  t.true(admitted > 20_000, `${admitted} admitted`);
});

test('the victims evicted are the fewest least worth per byte, as sorting them all would choose, ties in order', (t) => {
  const random = randomFrom(23);
  let compared = 0;
  for (let round = 0; round < 500; round++) {
    const count = 1 + Math.floor(random() * 200);
    // Few distinct worths and sizes: many ties and many densities in one power of two; some worth 0.
    const victims: [string, Held<null>][] = Array.from({ length: count }, (_, k) => [`v${k}`,
      { value: null, bytes: 1 + Math.floor(random() * 8) * 100, worth: Math.floor(random() * 6) * (random() < 0.5 ? 1 : 1000), work: 0 }]);
    const total = victims.reduce((sum, [, held]) => sum + held.bytes, 0);
    const needed = 1 + Math.floor(random() * total * 1.2);
    const density = (held: Held<null>) => held.worth / Math.max(1, held.bytes);
    const sorted = [...victims].sort((a, b) => density(a[1]) - density(b[1]));
    let freed = 0;
    let take = 0;
    while (freed < needed && take < sorted.length) freed += sorted[take++]![1].bytes;
    const { evicted, next } = leastDenseCovering(victims, needed);
    t.deepEqual(evicted.map(([key]) => key), sorted.slice(0, take).map(([key]) => key), `round ${round}`);
    t.is(next === null ? null : density(next), take < sorted.length ? density(sorted[take]![1]) : null, `round ${round}`);
    compared += take;
  }
  t.true(compared > 5000, `${compared}`);
});

test('aging halves every worth against new work, however many times it ages', (t) => {
  // 'old' is worth 2^20 once; after k half-lives it is worth 2^(20-k): a newcomer worth more per byte
  // by the admission margin evicts it from then on, and not before.
  for (const halfLives of [1, 5, 19]) {
    const cache = newBudget(1000);
    cache.set('old', new FakeTable(1000), 2 ** 20);
    for (let k = 0; k < halfLives * WORTH_HALF_LIFE_LOOKUPS; k++) cache.get('absent');
    const worthNow = 2 ** (20 - halfLives);
    t.false(cache.admit(worthNow * ADMISSION_MARGIN, 1000), `${halfLives}: just below`);
    t.true(cache.has('old'));
    t.true(cache.admit(worthNow * ADMISSION_MARGIN * 1.01, 1000), `${halfLives}: above`);
    t.false(cache.has('old'));
  }
});

test('maxEntries bounds the entries whatever their bytes: newcomers evict those worth least per byte, by the margin, else are refused', (t) => {
  const cache = new WorthPerByteCache<FakeTable>({ maxBytes: 1_000_000, sizeOf: (table) => table.byteLength, maxEntries: 64 });
  for (let k = 0; k < 64; k++) cache.offer(`old${k}`, new FakeTable(10), () => 10 + k);
  t.is(cache.size, 64);
  cache.offer('new0', new FakeTable(10), () => 1000);
  t.true(cache.has('new0'), 'a newcomer worth more per byte comes in');
  t.false(cache.has('old0'), 'the entry worth least per byte went');
  t.true(cache.size <= 64);
  for (let k = 1; k < 200; k++) cache.offer(`new${k}`, new FakeTable(10), () => 1000);
  t.is(cache.size, 64, 'never more than maxEntries, the bytes far under budget');
  t.is(cache.byteLength, 640);
  t.is([...Array(64).keys()].filter((k) => cache.has(`old${k}`)).length, 0, 'every old entry, worth less per byte by the margin, went');
  cache.offer('low', new FakeTable(10), () => 1);
  t.false(cache.has('low'), 'one worth less per byte than every entry is refused');
  // set (entries handed over) keeps the bound too.
  cache.set('handed', new FakeTable(10), 5000);
  t.is(cache.size, 64);
});
