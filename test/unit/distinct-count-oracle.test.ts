// distinct's count of a search's matches (estimatedTotalHits: one per key, every keyless document) reads
// each document's key number from its field's DistinctKeyTable, kept across writes, instead of the
// document's values; a worker holding the whole index sends the count alone, others the keys another
// worker may share. Held here to the plain definition (each matching document's key read from its
// values: its first number, else its first string; the keys' union counted) on random values, random
// writes between counts (replacements, deletions, new ids far past the table's end, a key rewritten
// until the table is made again), random shard layouts and random splits of the shards over workers.
import test from 'ava';
import roaring from 'roaring';
import { SeededRandom } from '../../bench/seeded-random.js';
import { distinctCandidates } from '../../src/front/search/distinct-merge.js';
import type { ShardQueryResultMessage } from '../../src/protocol/messages.js';
import { distinctKeysOf } from '../../src/shard/facets/distinct.js';
import { FacetStore, type FieldFacets } from '../../src/shard/facets/facet-store.js';
import { ShardEngine } from '../../src/shard/shard-engine.js';

const { RoaringBitmap32 } = roaring;

const VALUES: unknown[] = [0, 1, 1.5, -2, 10, -0, '1', '1.0', 'Action', 'action', 'ACTION', 'caf\u00e9', 'cafe', 'zebra', '', true, false, null];

function value(random: SeededRandom): unknown {
  const kind = random.int(0, 9);
  if (kind <= 5) return random.pick(VALUES);
  if (kind <= 7) return `v${random.int(0, 30)}`;
  if (kind === 8) return Array.from({ length: random.int(0, 3) }, () => random.pick(VALUES));
  return undefined;
}

function documentOf(random: SeededRandom, id: number): Record<string, unknown> {
  const k = value(random);
  return k === undefined ? { id, g: random.int(0, 3) } : { id, k, g: random.int(0, 3) };
}

/** The plain definition: a document's key from its values (first number, else first string). */
function plainKey(field: FieldFacets | undefined, docId: number): string | null {
  const own = field?.values.get(docId);
  if (!own) return null;
  return own.numbers.length > 0 ? `n${own.numbers[0]}` : own.strings.length > 0 ? `s${own.strings[0]}` : null;
}

function plainCount(field: FieldFacets | undefined, universe: Iterable<number>): { keys: Set<string>; withoutKey: number } {
  const keys = new Set<string>();
  let withoutKey = 0;
  for (const docId of universe) {
    const key = plainKey(field, docId);
    if (key === null) withoutKey++;
    else keys.add(key);
  }
  return { keys, withoutKey };
}

test('the key table counts what the documents\' values count, through writes, in every shard and over them', (t) => {
  for (let seed = 1; seed <= 300; seed++) {
    const random = new SeededRandom(seed);
    const shardCount = random.int(1, 4);
    const stores = Array.from({ length: shardCount }, () => new FacetStore(() => true, false));
    const docsOf: number[][] = Array.from({ length: shardCount }, () => []);
    let nextId = 0;
    const add = (shard: number, id: number) => {
      stores[shard]!.upsert(id, documentOf(random, id));
      docsOf[shard]!.push(id);
    };
    for (let k = random.int(0, 150); k > 0; k--) add(random.int(0, shardCount - 1), nextId++);
    for (let round = 0; round < 4; round++) {
      const union = new Set<string>();
      let unionWithout = 0;
      const plainUnion = new Set<string>();
      let plainWithout = 0;
      for (let shard = 0; shard < shardCount; shard++) {
        const share = random.pick([0.05, 0.5, 1]);
        const universe = new RoaringBitmap32(docsOf[shard]!.filter(() => random.next() < share));
        const field = stores[shard]!.field('k');
        const keys = distinctKeysOf(field);
        const listKeys = random.chance(0.7);
        const fast = keys.count(universe, null, listKeys);
        const plain = plainCount(field, universe);
        const where = `seed ${seed} round ${round} shard ${shard}`;
        t.is(fast.keyCount, plain.keys.size, where);
        t.is(fast.withoutKey, plain.withoutKey, where);
        if (listKeys) t.deepEqual(new Set(fast.keys), plain.keys, where);
        else t.is(fast.keys, null, where);
        for (const docId of docsOf[shard]!) t.is(keys.keyOf(docId), plainKey(field, docId), `${where} doc ${docId}`);
        // Capped (the count shown is maxTotalHits at most): the count stops there, exact below it.
        const cap = random.pick([1, 3, 20, 1000]);
        const capped = keys.count(universe, null, listKeys, cap);
        t.is(capped.keyCount + capped.withoutKey, Math.min(cap, plain.keys.size + plain.withoutKey), `${where} cap ${cap}`);
        const all = keys.count(universe, null, true);
        for (const key of all.keys!) union.add(key);
        unionWithout += all.withoutKey;
        for (const key of plain.keys) plainUnion.add(key);
        plainWithout += plain.withoutKey;
      }
      t.is(union.size + unionWithout, plainUnion.size + plainWithout, `seed ${seed} round ${round}: over the shards`);
      // Writes after the tables were made: replacements, deletions, new documents (some far past the table's end).
      for (let k = random.int(1, 12); k > 0; k--) {
        const shard = random.int(0, shardCount - 1);
        const docs = docsOf[shard]!;
        const choice = random.int(0, 3);
        if (choice === 0 && docs.length > 0) {
          const id = docs.splice(random.int(0, docs.length - 1), 1)[0]!;
          stores[shard]!.delete(id);
        } else if (choice === 1 && docs.length > 0) {
          const id = docs[random.int(0, docs.length - 1)]!;
          stores[shard]!.delete(id);
          stores[shard]!.upsert(id, documentOf(random, id));
        } else {
          add(shard, random.chance(0.2) ? 5000 + random.int(0, 100_000) + nextId++ : nextId++);
        }
      }
    }
  }
});

test('a key table whose keys mostly went is made again, and counts as before', (t) => {
  const store = new FacetStore(() => true, false);
  store.upsert(1, { k: 'kept' });
  store.upsert(2, { k: 'kept' });
  store.upsert(3, { k: 'first' });
  const field = store.field('k')!;
  const first = field.distinctKeys();
  t.is(distinctKeysOf(field).count(new RoaringBitmap32([1, 2, 3]), null, false).keyCount, 2);
  // One document rewritten with a new key each time: the table numbers every key it was told of.
  const rewrite = (from: number, to: number) => {
    for (let k = from; k < to; k++) {
      store.delete(3);
      store.upsert(3, { k: `rewritten ${k}` });
    }
  };
  rewrite(0, 1000);
  t.is(field.distinctKeys(), first, 'still the one table');
  t.is(first.keys.length, 1002);
  t.is(distinctKeysOf(field).count(new RoaringBitmap32([1, 2, 3]), null, true).keyCount, 2);
  rewrite(1000, 1100);
  store.upsert(4, { k: 'one more' });
  const remade = field.distinctKeys();
  t.not(remade, first, 'over twice the documents plus 1,024 numbers: made again');
  t.is(remade.keys.length, 3);
  t.deepEqual(new Set(distinctKeysOf(field).count(new RoaringBitmap32([1, 2, 3, 4]), null, true).keys), new Set(['skept', 'srewritten 1099', 'sone more']));
});

test('a worker holding the whole index sends the count alone; split over workers or networked, the front\'s union counts the same', (t) => {
  for (let seed = 1; seed <= 40; seed++) {
    const random = new SeededRandom(1000 + seed);
    const shardCount = random.int(1, 3);
    const engine = new ShardEngine(0, 1);
    const documents = Array.from({ length: random.int(20, 160) }, (_, id): [number, Record<string, unknown>] => [id, documentOf(random, id)]);
    // (doc ids as the scheduler composes them: the shard is the id modulo the shard count)
    engine.loadIndex('d', shardCount, { filterableAttributes: ['k', 'g'] }, documents);
    const fields = [...engine.allShards()].map((shard) => shard.facets.field('k'));
    const filter = random.chance(0.5) ? `g = ${random.int(0, 3)}` : null;
    const matching = documents.filter(([, document]) => filter === null || `g = ${document['g']}` === filter).map(([id]) => id);
    let plainKeys = new Set<string>();
    let plainWithout = 0;
    for (const field of fields) {
      const plain = plainCount(field, matching.filter((id) => field?.values.has(id) ?? false));
      plainKeys = new Set([...plainKeys, ...plain.keys]);
    }
    plainWithout = matching.filter((id) => fields.every((field) => plainKey(field, id) === null)).length;
    const expected = plainKeys.size + plainWithout;
    const search = (shards: number[], networked: boolean, countCap?: number) => engine.search({ indexUid: 'd', shards, q: null, hitsWanted: 5, matchingStrategy: 'last',
      options: { distinct: 'k', ...(filter === null ? {} : { filter }), ...(networked ? { networked: true } : {}), ...(countCap === undefined ? {} : { countCap }) } }) as unknown as ShardQueryResultMessage;
    const all = [...Array(shardCount).keys()];
    const whole = search(all, false);
    t.is(whole.candidates, expected, `seed ${seed}: whole`);
    t.deepEqual(whole.extras?.distinctCount, { keys: [], unshared: expected }, `seed ${seed}: the count alone`);
    t.is(distinctCandidates([whole]), expected);
    const networked = search(all, true);
    t.is(distinctCandidates([networked]), expected, `seed ${seed}: networked`);
    t.true((networked.extras?.distinctCount?.keys.length ?? 0) === plainKeys.size, `seed ${seed}: networked lists its keys`);
    // The shards split over two workers: each lists its keys, the front unions them.
    const cut = random.int(0, shardCount);
    const parts = [all.slice(0, cut), all.slice(cut)].filter((part) => part.length > 0).map((part) => search(part, false));
    t.is(distinctCandidates(parts), expected, `seed ${seed}: split at ${cut}`);
    // Capped at maxTotalHits: what the front shows (the merged count capped) is unchanged.
    const cap = random.pick([1, 4, 10, 30]);
    const shown = (results: ShardQueryResultMessage[]) => Math.min(cap, distinctCandidates(results));
    t.is(shown([search(all, false, cap)]), Math.min(cap, expected), `seed ${seed}: whole, cap ${cap}`);
    t.is(shown([search(all, true, cap)]), Math.min(cap, expected), `seed ${seed}: networked, cap ${cap}`);
    t.is(shown([all.slice(0, cut), all.slice(cut)].filter((part) => part.length > 0).map((part) => search(part, false, cap))), Math.min(cap, expected),
      `seed ${seed}: split at ${cut}, cap ${cap}`);
  }
});
