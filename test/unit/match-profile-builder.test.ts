// Match profiles (match-profile-builder.ts) against their definition: every token of the document
// whose word stands for a term, packed with its field, position, rank, typos and exactness; read one
// document at a time or through documentOffsets (the batched lookups of the score chain) alike, and
// with the word lookup's shared tables reused from query to query.
import test from 'ava';
import { ForwardIndex } from '../../src/shard/documents/forward-index.js';
import { buildProfile, buildProfileAt, documentOffsets, fieldWordCount, lookupArrays, MAX_LOOKUP_TERMS, touchEntries, WordLookup, emptyWordLookupTables } from '../../src/shard/documents/match-profile-builder.js';

/** Reused tables, as a search's scratch holds them: lookups one after the other find the entries of the ones before. */
const TABLES = emptyWordLookupTables();
import { MAX_QUERY_TERMS } from '../../src/query/parse-query.js';
import { emptyProfile, occurrencesOf, packOccurrence, type DocMatchProfile } from '../../src/ranking/match-profile.js';
import { randomFrom } from './seeded-lcg.js';

const VOCABULARY = 3000;

interface Doc {
  fieldRanks: number[];
  wordIds: number[];
  fields: number[];
  positions: number[];
}

function randomDocument(random: () => number): Doc {
  const fieldCount = Math.floor(random() * 4);
  const doc: Doc = { fieldRanks: Array.from({ length: fieldCount }, () => Math.floor(random() * 5)), wordIds: [], fields: [], positions: [] };
  for (let field = 0; field < fieldCount; field++) {
    const length = Math.floor(random() * 30);
    for (let position = 0; position < length; position++) {
      // Skewed: a few words are in most documents.
      doc.wordIds.push(Math.floor(VOCABULARY * random() ** 3));
      doc.fields.push(field);
      doc.positions.push(position);
    }
  }
  return doc;
}

/** term -> word -> [typos, exact]: each query word's derivations, some words standing for two terms. */
function randomDerivations(random: () => number, terms: number): Map<number, [number, boolean]>[] {
  return Array.from({ length: terms }, () => {
    const words = new Map<number, [number, boolean]>();
    const count = 1 + Math.floor(random() * (random() < 0.2 ? 400 : 6));
    for (let k = 0; k < count; k++) words.set(Math.floor(VOCABULARY * random() ** 2), [Math.floor(random() * 3), random() < 0.5]);
    return words;
  });
}

interface PlainProfile {
  docId: number;
  occurrences: number[][];
}

function expectedProfile(doc: Doc | undefined, docId: number, derivations: Map<number, [number, boolean]>[]): PlainProfile {
  const occurrences: number[][] = derivations.map(() => []);
  if (doc) {
    doc.wordIds.forEach((wordId, k) => derivations.forEach((words, term) => {
      const match = words.get(wordId);
      const field = doc.fields[k]!;
      if (match) occurrences[term]!.push(packOccurrence(field, doc.positions[k]!, doc.fieldRanks[field]!, match[0], match[1]));
    }));
  }
  return { docId, occurrences };
}

/** The profile's occurrences as they count (the reused lists keep other documents' entries past the counts). */
function copyOf(profile: DocMatchProfile): PlainProfile {
  return { docId: profile.docId, occurrences: profile.occurrences.map((_, term) => occurrencesOf(profile, term)) };
}

test.serial('a word lookup answers only for its own words, also past the vocabulary it was made for', (t) => {
  const tables = emptyWordLookupTables();
  const first = new WordLookup(100, tables);
  first.add(3, 0, 0, true);
  first.add(64, 0, 1, false);
  t.true(first.has(3) && first.has(64));
  t.false(first.has(4) || first.has(35) || first.has(96) || first.has(10_000));
  // While the shared tables are taken, another lookup gets its own.
  const second = new WordLookup(100, tables);
  t.false(second.has(3));
  second.add(5, 0, 0, true);
  t.false(first.has(5));
  second.release();
  first.release();
  const third = new WordLookup(100, tables);
  t.false(third.has(3) || third.has(64) || third.has(5));
  third.release();
});

test.serial('profiles hold exactly the tokens of the query words, one by one and batched, query after query', (t) => {
  const random = randomFrom(5);
  const forward = new ForwardIndex();
  const docs = new Map<number, Doc>();
  for (let docId = 0; docId < 600; docId++) {
    if (random() < 0.1) continue;
    const doc = randomDocument(random);
    docs.set(docId, doc);
    forward.put(docId, doc);
  }
  for (let query = 0; query < 60; query++) {
    const derivations = randomDerivations(random, 1 + Math.floor(random() * 3));
    const words = new WordLookup(VOCABULARY, TABLES);
    // Word by word, or a term's words at once (addTerm, as searches fill it), alike.
    derivations.forEach((byWord, term) => {
      if (query % 2 === 0) {
        byWord.forEach(([typos, exact], wordId) => words.add(wordId, term, typos, exact));
      } else {
        const { wordIds, flags } = lookupArrays([...byWord].map(([wordId, [typos, exact]]) => ({ wordId, typos, exact })));
        words.addTerm(wordIds, flags, term);
      }
    });
    const into = emptyProfile(derivations.length);
    // Absent ids (never put, or past the last document) read as empty profiles.
    const docIds = Uint32Array.from(Array.from({ length: 1 + Math.floor(random() * 80) }, () => Math.floor(random() * 650))).sort();
    const offsets = documentOffsets(forward, docIds);
    // Loading entries ahead (as the score chain does, in chunks) changes nothing read, absent ids included.
    const arenaBefore = forward.arena.slice();
    touchEntries(forward.arena, offsets, 0, Math.min(docIds.length, 1 + Math.floor(random() * docIds.length)));
    t.deepEqual(forward.arena, arenaBefore);
    try {
      docIds.forEach((docId, index) => {
        const expected = expectedProfile(docs.get(docId), docId, derivations);
        t.deepEqual(copyOf(buildProfile(forward, docId, words, [], into)), expected, `query ${query} doc ${docId}`);
        t.deepEqual(copyOf(buildProfileAt(forward.arena, offsets[index]!, docId, words, [], into)), expected, `query ${query} doc ${docId} batched`);
      });
    } finally {
      words.release();
    }
  }
});

test.serial('addTerm: a word standing for several terms, or twice for one, has every entry in the order added', (t) => {
  const forward = new ForwardIndex();
  forward.put(7, { fieldRanks: [2, 0], wordIds: [10, 11, 10, 12], fields: [0, 0, 1, 1], positions: [0, 1, 0, 1] });
  const words = new WordLookup(VOCABULARY, TABLES);
  try {
    words.addTerm(Int32Array.of(10, 12), Uint8Array.of(0, 3), 0);
    // Word 10 again for term 1 (one typo, exact), and twice for term 2.
    words.addTerm(Int32Array.of(11, 10), Uint8Array.of(1, 2), 1);
    words.addTerm(Int32Array.of(10, 10), Uint8Array.of(0, 5), 2);
    const profile = copyOf(buildProfile(forward, 7, words, [], emptyProfile(3)));
    t.deepEqual(profile.occurrences, [
      [packOccurrence(0, 0, 2, 0, true), packOccurrence(1, 0, 0, 0, true), packOccurrence(1, 1, 0, 1, false)],
      [packOccurrence(0, 0, 2, 1, true), packOccurrence(0, 1, 2, 0, false), packOccurrence(1, 0, 0, 1, true)],
      [packOccurrence(0, 0, 2, 0, true), packOccurrence(0, 0, 2, 2, false), packOccurrence(1, 0, 0, 0, true), packOccurrence(1, 0, 0, 2, false)],
    ]);
    t.true(words.has(10) && words.has(11) && words.has(12));
    t.false(words.has(13));
  } finally {
    words.release();
  }
  const next = new WordLookup(VOCABULARY, TABLES);
  t.false(next.has(10) || next.has(11) || next.has(12), 'released: the next lookup starts empty');
  next.release();
});

test.serial('a field\'s word count is the number of its tokens', (t) => {
  const random = randomFrom(9);
  const forward = new ForwardIndex();
  const docs = new Map<number, Doc>();
  for (let docId = 0; docId < 300; docId++) {
    const doc = randomDocument(random);
    docs.set(docId, doc);
    forward.put(docId, doc);
  }
  for (const [docId, doc] of docs) {
    for (let field = 0; field <= doc.fieldRanks.length; field++) {
      t.is(fieldWordCount(forward, docId, field), doc.fields.filter((f) => f === field).length, `doc ${docId} field ${field}`);
    }
  }
  t.is(fieldWordCount(forward, 999, 0), 0);
});

test.serial('a lookup of as many terms as a query has (one byte per word\'s entry): every term, typo count and exactness told apart; more terms refused', (t) => {
  const random = randomFrom(9);
  const forward = new ForwardIndex();
  const docs = new Map<number, Doc>();
  for (let docId = 0; docId < 200; docId++) {
    const doc = randomDocument(random);
    docs.set(docId, doc);
    forward.put(docId, doc);
  }
  for (let query = 0; query < 20; query++) {
    const derivations = randomDerivations(random, MAX_QUERY_TERMS);
    const words = new WordLookup(VOCABULARY, TABLES);
    derivations.forEach((byWord, term) => {
      const { wordIds, flags } = lookupArrays([...byWord].map(([wordId, [typos, exact]]) => ({ wordId, typos, exact })));
      words.addTerm(wordIds, flags, term);
    });
    const into = emptyProfile(derivations.length);
    try {
      for (const [docId, doc] of docs) {
        t.deepEqual(copyOf(buildProfile(forward, docId, words, [], into)), expectedProfile(doc, docId, derivations), `query ${query} doc ${docId}`);
      }
    } finally {
      words.release();
    }
  }
  const words = new WordLookup(VOCABULARY, TABLES);
  try {
    t.throws(() => words.add(1, MAX_LOOKUP_TERMS, 0, true), { instanceOf: RangeError });
    t.throws(() => words.addTerm(Int32Array.of(1), Uint8Array.of(0), MAX_LOOKUP_TERMS), { instanceOf: RangeError });
    t.notThrows(() => words.add(1, MAX_LOOKUP_TERMS - 1, 2, false));
  } finally {
    words.release();
  }
});
