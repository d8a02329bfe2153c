// Shard snapshots (src/shard/snapshot/shard-snapshot.ts): a restored shard must answer every search exactly as
// the shard it was taken from (randomized corpus with deletes and re-writes, before and after more
// writes applied to both), and a file that is not exactly the expected snapshot must be refused.
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { decodeShardSnapshot, encodeShardSnapshot, settingsFingerprint, type ShardSnapshotIdentity } from '../../src/shard/snapshot/shard-snapshot.js';
import { SnapshotFormatError, SnapshotReader, SnapshotWriter } from '../../src/shard/snapshot/snapshot-container.js';
import { openSnapshotFile, readAheadOf, writeFileAtomically } from '../../src/shard/snapshot/snapshot-files.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeBitmaps, encodeBitmaps } from '../../src/shard/snapshot/bitmap-list-codec.js';
import type { IndexSettings } from '../../src/settings/index-settings.js';
import roaring from 'roaring';
import { randomFrom } from './seeded-lcg.js';

const WORDS = ['alpha', 'alpine', 'alpaca', 'beta', 'better', 'bitter', 'gamma', 'gammon', 'delta', 'deltas', 'kappa',
  'lambda', 'lambada', 'mu', 'nu', 'pi', 'rho', 'sigma', 'tau', 'phi', 'omega', 'omicron', 'été', 'über'];

function makeDocument(random: () => number, id: number): Record<string, unknown> {
  const word = () => (random() < 0.2 ? `r${Math.floor(random() * 400)}` : WORDS[Math.floor(WORDS.length * random() ** 2)]!);
  const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, word).join(' ');
  const genres = ['Drama', 'drama', 'Comedy', 'Sci-Fi', ' Comedy'];
  const roll = random();
  return {
    id, title: text(4), body: random() < 0.2 ? text(60) : text(8), tags: [text(2), text(2)],
    year: roll < 0.1 ? null : roll < 0.15 ? [1999, 2001] : 1990 + Math.floor(random() * 30),
    genre: roll > 0.9 ? [] : roll > 0.85 ? '' : [genres[Math.floor(random() * genres.length)]!, random() < 0.3],
    ...(random() < 0.5 ? { _geo: { lat: random() * 90, lng: random() * 180 - 90 } } : {}),
  };
}

function makeQuery(random: () => number): string {
  const word = () => (random() < 0.25 ? `r${Math.floor(random() * 400)}` : WORDS[Math.floor(random() * WORDS.length)]!);
  const words = Array.from({ length: 1 + Math.floor(random() * 3) }, word);
  const roll = random();
  if (roll < 0.2) words[words.length - 1] = words[words.length - 1]!.slice(0, 2);
  else if (roll < 0.35) words[0] = `${words[0]!.slice(0, 2)}x${words[0]!.slice(3)}`;
  return words.join(' ') + (random() < 0.5 ? ' ' : '');
}

function identityOf(settings: Partial<IndexSettings>): ShardSnapshotIdentity {
  return { indexUid: 'movies', shard: 1, shardCount: 4, commitSeq: 42, settingsFingerprint: settingsFingerprint(compileIndexConfig(settings).settings) };
}

/** Everything a FacetStore answers from, as plain data (sorted caches included: they must agree too). */
function facetState(shard: ShardIndex): unknown {
  const fields = [...shard.facets.fields].map(([name, field]) => ({
    name,
    exists: field.exists.read().toArray(), nulls: field.nulls.read().toArray(), empties: field.empties.read().toArray(),
    strings: [...field.strings].map(([key, facet]) => [key, facet.docs.read().toArray(), [...facet.spellings]]),
    values: [...field.values].map(([docId, own]) => [docId, own.numbers, own.strings]).sort((a, b) => (a[0] as number) - (b[0] as number)),
    sortedNumbers: [...field.sortedNumbers().values], sortedStrings: field.sortedStrings(),
  }));
  return { fields, geo: [...shard.facets.geo].sort((a, b) => a[0] - b[0]) };
}

function concat(chunks: Uint8Array[]): Buffer {
  return Buffer.concat(chunks);
}

function sameAnswers(t: import('ava').ExecutionContext, a: ShardIndex, b: ShardIndex, random: () => number): void {
  for (let k = 0; k < 80; k++) {
    const q = k === 0 ? '' : makeQuery(random);
    const hitsWanted = 1 + Math.floor(random() * 50);
    const matchingStrategy = random() < 0.7 ? 'last' as const : 'all' as const;
    const left = a.search({ q, hitsWanted, matchingStrategy });
    const right = b.search({ q, hitsWanted, matchingStrategy });
    t.deepEqual(right.hits, left.hits, `q=${JSON.stringify(q)}`);
    t.is(right.candidates, left.candidates);
  }
}

for (let round = 0; round < 6; round++) {
  test(`a restored shard answers as the original (round ${round})`, (t) => {
    const random = randomFrom(7 + round);
    const settings: Partial<IndexSettings> = round % 2 === 0 ? {} : { searchableAttributes: ['body', 'title'], typoTolerance: { disableOnAttributes: ['tags'] } } as Partial<IndexSettings>;
    // Facets in half the rounds: filterable strings, numbers, booleans, null / empty values, `_geo`.
    if (round % 4 < 2) Object.assign(settings, { filterableAttributes: ['genre', 'year', '_geo'], sortableAttributes: ['year'] });
    const config = compileIndexConfig(settings);
    const original = new ShardIndex(config);
    const count = 500 + round * 100;
    for (let docId = 0; docId < count; docId++) original.upsert(docId * 4 + 1, makeDocument(random, docId));
    if (round % 3 !== 2) original.trim();
    // Deletes and re-writes after the build: holes in the arena, unbuilt and pair-array rank lists.
    for (let k = 0; k < 150; k++) {
      const docId = Math.floor(random() * count) * 4 + 1;
      if (random() < 0.5) original.delete(docId);
      else original.upsert(docId, makeDocument(random, k + 10_000));
    }
    original.flushWrites();
    if (round % 2 === 1) sameAnswers(t, original, original, randomFrom(99)); // lazily built lists exist too
    const identity = identityOf(settings);
    const restored = decodeShardSnapshot(concat(encodeShardSnapshot(original, identity)), identity, config);
    t.is(restored.documentCount, original.documentCount);
    t.deepEqual(restored.documents.toArray(), original.documents.toArray());
    t.deepEqual(facetState(restored), facetState(original));
    sameAnswers(t, original, restored, randomFrom(round));
    // Further writes keep both alike (the restored structures stay writable).
    const writes = randomFrom(500 + round);
    for (let k = 0; k < 200; k++) {
      const docId = Math.floor(writes() * (count + 50)) * 4 + 1;
      const document = makeDocument(writes, k + 20_000);
      for (const shard of [original, restored]) {
        if (k % 3 === 0) shard.delete(docId);
        else shard.upsert(docId, document);
        shard.flushWrites();
      }
    }
    sameAnswers(t, original, restored, randomFrom(1000 + round));
    t.deepEqual(facetState(restored), facetState(original));
  });
}

for (const round of [0, 1]) {
  test(`a restored shard keeps every derived structure built: nothing to prepare, the same answers (round ${round})`, (t) => {
    const random = randomFrom(70 + round);
    const settings: Partial<IndexSettings> = round === 0 ? {} : { searchableAttributes: ['title', 'body'] };
    const config = compileIndexConfig(settings);
    const original = new ShardIndex(config);
    const count = 3000;
    for (let docId = 0; docId < count; docId++) original.upsert(docId, makeDocument(random, docId));
    original.trim();
    original.prepareForSearch();
    // Writes after the build (fewer than a rebuild needs): the restored structures must still read these documents.
    for (let k = 0; k < 60; k++) original.upsert(Math.floor(random() * count), makeDocument(random, 50_000 + k));
    original.flushWrites();
    t.false(original.needsPreparing);
    const identity = identityOf(settings);
    const restored = decodeShardSnapshot(concat(encodeShardSnapshot(original, identity)), identity, config);
    t.deepEqual(restored.derived.map((structure) => structure.needsBuild), original.derived.map(() => false));
    t.false(restored.needsPreparing, 'the restored shard has nothing to build');
    t.true(restored.nearPairs.byteLength > 0 && restored.fieldStartPairs.byteLength > 0);
    // The lexicon ready too (format 6): its indexes came with the file, its list's memos were made on restore.
    t.false(restored.lexiconIndexDue, 'the deletion index came with the snapshot');
    const lexicon = restored.vocabulary.lexicon;
    const indexes = lexicon.exportIndexes();
    t.true(indexes.nearPrefixes !== null && indexes.deletions !== null, 'near-prefix filter and deletion index');
    t.is(restored.memoryBytes().lexicon, original.memoryBytes().lexicon);
    const lists = lexicon.lists();
    t.is(lists.length, 1, 'one sorted list');
    const list = lists[0]!;
    const packed = lexicon.memos.packed.get(list);
    t.is(packed?.starts.length, list.length + 1, 'packed list');
    t.not(packed?.tailOrder, undefined, 'tail order');
    t.deepEqual([...lexicon.memos.ids.get(list) ?? []], list.map((word) => restored.vocabulary.idOf(word)), 'word ids');
    sameAnswers(t, original, restored, randomFrom(80 + round));
    t.false(restored.needsPreparing, 'searches built nothing');
    // Saved again from the restored shard (its lists partly still encoded): the same file.
    t.deepEqual(concat(encodeShardSnapshot(restored, identity)), concat(encodeShardSnapshot(original, identity)));
    const writes = randomFrom(90 + round);
    for (let k = 0; k < 300; k++) {
      const docId = Math.floor(writes() * (count + 100));
      const document = makeDocument(writes, 60_000 + k);
      for (const shard of [original, restored]) {
        if (k % 4 === 0) shard.delete(docId);
        else shard.upsert(docId, document);
        shard.flushWrites();
      }
    }
    sameAnswers(t, original, restored, randomFrom(100 + round));
  });
}

/** A shard of `count` random documents under `settings`, with the identity its snapshots are checked against. */
function randomShard(seed: number, settings: Partial<IndexSettings>, count: number) {
  const random = randomFrom(seed);
  const config = compileIndexConfig(settings);
  const shard = new ShardIndex(config);
  for (let docId = 0; docId < count; docId++) shard.upsert(docId, makeDocument(random, docId));
  return { config, shard, identity: identityOf(settings) };
}

/** The snapshot's sections under another meta (what an older or malformed writer would have written). */
function withMeta(current: SnapshotReader, meta: Record<string, unknown>): Buffer {
  const writer = new SnapshotWriter();
  for (let section = 0; section < (current.meta['sectionLengths'] as number[]).length; section++) writer.add(current.bytes(section));
  return concat(writer.chunks(meta));
}

test('a format 3, 4 or 5 snapshot (facet keys without their diacritics; no lexicon indexes) is refused, so the shard is rebuilt from LMDB', (t) => {
  const { config, shard: original, identity } = randomShard(75, { filterableAttributes: ['tags'] }, 300);
  original.trim();
  original.prepareForSearch();
  const current = SnapshotReader.fromBytes(concat(encodeShardSnapshot(original, identity)));
  for (const version of [3, 4, 5]) {
    t.throws(() => decodeShardSnapshot(withMeta(current, { ...current.meta, version }), identity, config), { instanceOf: SnapshotFormatError }, `format ${version}`);
  }
  sameAnswers(t, original, decodeShardSnapshot(concat(encodeShardSnapshot(original, identity)), identity, config), randomFrom(76));
});

test('a snapshot whose lexicon part does not fit its words (node words, sizes) is refused', (t) => {
  const { config, shard: original, identity } = randomShard(77, {}, 300);
  original.prepareForSearch();
  const current = SnapshotReader.fromBytes(concat(encodeShardSnapshot(original, identity)));
  const lexicon = current.meta['lexicon'] as { deletions: Record<string, number>; nearPrefixes: Record<string, number> };
  const changes: [string, Record<string, unknown>][] = [
    ['node words read from the base entries (keys as word ids)', { deletions: { ...lexicon.deletions, nodeWordIds: lexicon.deletions['baseEntries'] } }],
    ['a bucket shift that does not fit the offsets', { deletions: { ...lexicon.deletions, baseShift: lexicon.deletions['baseShift']! - 1 } }],
    ['more keys than the key table holds', { deletions: { ...lexicon.deletions, keyCount: 1 << 30 } }],
    ['filter bits of no filter size', { nearPrefixes: { ...lexicon.nearPrefixes, bits: lexicon.deletions['nodeWordIds'] } }],
  ];
  for (const [name, change] of changes) {
    t.throws(() => decodeShardSnapshot(withMeta(current, { ...current.meta, lexicon: { ...lexicon, ...change } }), identity, config), { instanceOf: SnapshotFormatError }, name);
  }
  t.throws(() => decodeShardSnapshot(withMeta(current, { ...current.meta, lexicon: undefined }), identity, config), { instanceOf: SnapshotFormatError }, 'no lexicon part');
  t.notThrows(() => decodeShardSnapshot(withMeta(current, current.meta), identity, config), 'the same meta');
});

test('an empty shard restores and takes writes', (t) => {
  const config = compileIndexConfig({ filterableAttributes: ['tags'] });
  const identity = identityOf({ filterableAttributes: ['tags'] });
  const restored = decodeShardSnapshot(concat(encodeShardSnapshot(new ShardIndex(config), identity)), identity, config);
  t.is(restored.documentCount, 0);
  restored.upsert(3, { id: 3, title: 'alpha beta', tags: ['x'] });
  restored.flushWrites();
  t.deepEqual(restored.search({ q: 'alpha', hitsWanted: 5, matchingStrategy: 'last' }).hits.map((hit) => hit.docId), [3]);
  t.deepEqual(restored.facets.field('tags')?.strings.get('x')?.docs.read().toArray(), [3]);
});

test('a snapshot is refused unless it is exactly the expected one', (t) => {
  const { config, shard, identity } = randomShard(3, {}, 300);
  shard.trim();
  const file = concat(encodeShardSnapshot(shard, identity));
  t.notThrows(() => decodeShardSnapshot(file, identity, config));
  for (const change of [{ commitSeq: 43 }, { shard: 2 }, { shardCount: 8 }, { indexUid: 'other' }, { settingsFingerprint: 'x' }]) {
    t.throws(() => decodeShardSnapshot(file, { ...identity, ...change }, config), { instanceOf: SnapshotFormatError }, JSON.stringify(change));
  }
  t.throws(() => decodeShardSnapshot(file.subarray(0, file.length - 9), identity, config), { instanceOf: SnapshotFormatError });
  t.throws(() => decodeShardSnapshot(file.subarray(0, 20), identity, config), { instanceOf: SnapshotFormatError });
  t.throws(() => decodeShardSnapshot(Buffer.alloc(0), identity, config), { instanceOf: SnapshotFormatError });
  for (const at of [40, Math.floor(file.length / 2), file.length - 1]) {
    const corrupt = Buffer.from(file);
    corrupt[at] = corrupt[at]! ^ 0x5a;
    t.throws(() => decodeShardSnapshot(corrupt, identity, config), { instanceOf: SnapshotFormatError }, `byte ${at}`);
  }
});

/** A shard of 400 random documents saved as `0.bin` in a new folder (the caller removes it). */
function savedShard(seed: number) {
  const random = randomFrom(seed);
  const config = compileIndexConfig({});
  const shard = new ShardIndex(config);
  for (let docId = 0; docId < 400; docId++) shard.upsert(docId, makeDocument(random, docId));
  shard.trim();
  const identity = identityOf({});
  const folder = mkdtempSync(join(tmpdir(), 'skein-snapshot-'));
  const path = join(folder, '0.bin');
  writeFileAtomically(path, folder, encodeShardSnapshot(shard, identity));
  return { config, shard, identity, folder, path };
}

test('a snapshot read from its file in parts gives the same shard; a damaged file is refused', (t) => {
  const { config, shard, identity, folder, path } = savedShard(11);
  try {
    t.deepEqual(readdirSync(folder), ['0.bin'], 'no temporary file left');
    const reader = SnapshotReader.fromFile(path);
    const restored = decodeShardSnapshot(reader, identity, config);
    sameAnswers(t, shard, restored, randomFrom(12));
    const bytes = readFileSync(path);
    for (const damage of [(b: Buffer) => b.subarray(0, b.length - 4), (b: Buffer) => { const c = Buffer.from(b); c[c.length >> 1] ^= 1; return c; }]) {
      writeFileSync(path, damage(bytes));
      t.throws(() => SnapshotReader.fromFile(path), { instanceOf: SnapshotFormatError });
    }
    t.is(openSnapshotFile(join(folder, 'missing.bin')), null);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('a snapshot read ahead (queued reads, CRC as they arrive) gives the same shard; a damaged, truncated or missing file is refused', async (t) => {
  const { config, shard, identity, folder, path } = savedShard(13);
  try {
    const bytes = readFileSync(path);
    // Chunks smaller than the parts, of a size that divides nothing: every part read in several reads.
    for (const chunkBytes of [1000, 4096, 1 << 23]) {
      const restored = decodeShardSnapshot(await SnapshotReader.fromFileAsync(path, chunkBytes), identity, config);
      sameAnswers(t, shard, restored, randomFrom(14));
    }
    const damages: [string, (b: Buffer) => Buffer][] = [
      ['truncated', (b) => b.subarray(0, b.length - 4)],
      ['a flipped bit mid-file', (b) => { const c = Buffer.from(b); c[c.length >> 1] ^= 1; return c; }],
      ['a flipped bit in the last byte', (b) => { const c = Buffer.from(b); c[c.length - 1] ^= 0x80; return c; }],
      ['not a snapshot', () => Buffer.from('not a snapshot')],
    ];
    for (const [name, damage] of damages) {
      writeFileSync(path, damage(bytes));
      await t.throwsAsync(async () => SnapshotReader.fromFileAsync(path, 1000), { instanceOf: SnapshotFormatError }, name);
      t.true((await readAheadOf(path)) instanceof SnapshotFormatError, `${name}: read ahead, settled with the error`);
    }
    t.is(await readAheadOf(join(folder, 'missing.bin')), null);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('bitmap lists round-trip', (t) => {
  const bitmaps = [new roaring.RoaringBitmap32(), new roaring.RoaringBitmap32([1, 5, 70000]), roaring.RoaringBitmap32.fromRange(10, 200_000)];
  const { bytes, ends } = encodeBitmaps(bitmaps);
  t.deepEqual(decodeBitmaps(bytes, ends).map((bitmap) => bitmap.toArray()), bitmaps.map((bitmap) => bitmap.toArray()));
  t.throws(() => decodeBitmaps(bytes.subarray(0, bytes.length - 1), ends));
});

test('the ranks whose fields are named by their selector (attributesToSearchOn\'s shortcut) follow the writes and survive a snapshot; an older file leaves them unknown', (t) => {
  const settings: Partial<IndexSettings> = { searchableAttributes: ['title', 'details', 'tags'] };
  const config = compileIndexConfig(settings);
  const identity = identityOf(settings);
  const shard = new ShardIndex(config);
  shard.upsert(1, { id: 1, title: 'alpha', details: 'beta', tags: ['gamma'] });
  t.deepEqual([0, 1, 2].map((rank) => shard.fieldNamedByRank(rank)), [true, true, true]);
  // `details.inner` ranks under `details` without being named by it; a field without words changes nothing.
  shard.upsert(2, { id: 2, title: 'delta', details: { inner: 'kappa' }, tags: { empty: '' } });
  t.deepEqual([0, 1, 2].map((rank) => shard.fieldNamedByRank(rank)), [true, false, true]);
  // Deleting the document does not make the rank named again (the set never shrinks).
  shard.delete(2);
  t.false(shard.fieldNamedByRank(1));
  const file = concat(encodeShardSnapshot(shard, identity));
  const restored = decodeShardSnapshot(file, identity, config);
  t.deepEqual([0, 1, 2].map((rank) => restored.fieldNamedByRank(rank)), [true, false, true]);
  const current = SnapshotReader.fromBytes(file);
  const older = decodeShardSnapshot(withMeta(current, { ...current.meta, inexactRanks: undefined }), identity, config);
  t.deepEqual([0, 1, 2].map((rank) => older.fieldNamedByRank(rank)), [false, false, false]);
  // With searchableAttributes `*` the ranks are ordinals: never named.
  const everything = new ShardIndex(compileIndexConfig({}));
  everything.upsert(1, { id: 1, title: 'alpha' });
  t.false(everything.fieldNamedByRank(0));
});

test('with searchableAttributes `*`, each rank (field ordinal) keeps the one name its fields had, null once two met, through writes and a snapshot; an older file leaves them unknown', (t) => {
  const settings: Partial<IndexSettings> = {};
  const config = compileIndexConfig(settings);
  const identity = identityOf(settings);
  const shard = new ShardIndex(config);
  shard.upsert(1, { id: 1, title: 'alpha', details: { inner: 'beta' }, empty: '' });
  t.deepEqual([0, 1, 2, 3].map((rank) => shard.nameAtRank(rank)), ['id', 'title', 'details.inner', undefined]);
  // Another order puts `title` at rank 0: rank 0 has two names now; deleting the document changes nothing.
  shard.upsert(2, { title: 'gamma', id: 2, details: { inner: 'delta' } });
  t.deepEqual([0, 1, 2].map((rank) => shard.nameAtRank(rank)), [null, null, 'details.inner']);
  shard.delete(2);
  t.is(shard.nameAtRank(0), null);
  // A field without words takes an ordinal but leaves its rank unmarked.
  shard.upsert(3, { id: 3, title: 'epsilon', details: { inner: 'zeta' }, empty: '', more: 'eta' });
  t.deepEqual([3, 4].map((rank) => shard.nameAtRank(rank)), [undefined, 'more']);
  const file = concat(encodeShardSnapshot(shard, identity));
  const restored = decodeShardSnapshot(file, identity, config);
  t.deepEqual([0, 1, 2, 3, 4].map((rank) => restored.nameAtRank(rank)), [null, null, 'details.inner', undefined, 'more']);
  const current = SnapshotReader.fromBytes(file);
  const older = decodeShardSnapshot(withMeta(current, { ...current.meta, rankNames: undefined }), identity, config);
  t.deepEqual([0, 2, 4].map((rank) => older.nameAtRank(rank)), [null, null, null]);
  // Explicit searchableAttributes: no names kept (ranks are the selectors').
  const explicit = new ShardIndex(compileIndexConfig({ searchableAttributes: ['title'] }));
  explicit.upsert(1, { id: 1, title: 'alpha' });
  t.is(explicit.nameAtRank(0), undefined);
});
