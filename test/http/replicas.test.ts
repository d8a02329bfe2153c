// Replicas: 2 workers, 1 shard per index, so both workers hold the whole index and each search goes
// to one of them (src/front/search/replica-choice.ts; the tests spell each query so that it reaches both). Every answer
// must be complete and identical whichever replica gave it, across writes, restarts and deletion.
import test from 'ava';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { queryAffinity } from '../../src/front/search/replica-choice.js';
import { withTempDir, withTestServer, type Client } from './harness.js';
import { rewriteStoredDocument } from './storage-behind-the-back.js';

const WORDS = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'heron', 'iris', 'jade'];
const REPLICATED = { workers: 2, shardsPerIndex: 1 };

function movies(count: number, from = 0) {
  return Array.from({ length: count }, (_, k) => ({
    id: from + k,
    title: `${WORDS[(from + k) % WORDS.length]} ${WORDS[(from + k * 3) % WORDS.length]} film${from + k}`,
    genre: ['drama', 'comedy', 'horror'][(from + k) % 3],
  }));
}

interface Answer { ids: number[]; total: number; facets: unknown }

async function search(client: Client, index: string, q: string): Promise<Answer> {
  const faceted = index === 'rep';
  const response = await client.post(`/indexes/${index}/search`, { q, limit: 1000, ...(faceted ? { facets: ['genre'] } : {}) });
  if (response.status !== 200) throw new Error(`search ${q}: ${response.status} ${response.text}`);
  return { ids: response.body.hits.map((hit: { id: number }) => hit.id), total: response.body.estimatedTotalHits, facets: response.body.facetDistribution };
}

/**
 * Spellings of `q` that search alike but whose texts prefer each of the two replicas (replica-choice.ts
 * sends the same text to the same replica while it is not much busier): asked one by one, they reach both.
 */
function spellingsForBothReplicas(q: string): string[] {
  const spellings = [q];
  for (let pad = 1; pad < 64 && new Set(spellings.map((text) => queryAffinity(text) % 2)).size < 2; pad++) spellings.push(' '.repeat(pad) + q);
  if (new Set(spellings.map((text) => queryAffinity(text) % 2)).size < 2) throw new Error(`no spelling of "${q}" for the second replica`);
  return spellings;
}

/** The search on both replicas (one after the other, then all at once): the distinct answers. */
async function answersOf(client: Client, index: string, q: string): Promise<Answer[]> {
  const spellings = spellingsForBothReplicas(q);
  const sequential: Answer[] = [];
  for (const text of spellings) sequential.push(await search(client, index, text));
  const concurrent = await Promise.all(Array.from({ length: 8 }, (_, k) => search(client, index, spellings[k % spellings.length]!)));
  const distinct = new Map<string, Answer>();
  for (const answer of [...sequential, ...concurrent]) distinct.set(JSON.stringify(answer), answer);
  return [...distinct.values()];
}

/** One answer per query, identical over repeats; throws (failing the test) when the replicas disagree. */
async function agreedAnswer(client: Client, index: string, q: string): Promise<Answer> {
  const answers = await answersOf(client, index, q);
  if (answers.length !== 1) throw new Error(`replicas disagree on "${q}": ${answers.map((answer) => JSON.stringify(answer.ids)).join(' vs ')}`);
  return answers[0]!;
}

/** Ids of the documents whose title holds the word (what a complete answer returns). */
function holding(documents: { id: number; title: string }[], word: string): number[] {
  return documents.filter((document) => document.title.split(' ').includes(word)).map((document) => document.id).sort((a, b) => a - b);
}

function snapshotFiles(dbPath: string, index: string): string[] {
  const folder = join(dbPath, 'snapshots', index);
  return existsSync(folder) ? readdirSync(folder).sort() : [];
}

test('replicas answer alike and completely, see writes on both, restore from one snapshot file, and drop it', (t) =>
  withTempDir(async (dbPath) => {
    const before = await withTestServer({ dbPath, ...REPLICATED }, async (first) => {
      await first.client.run('PATCH', '/indexes/rep/settings', { body: { filterableAttributes: ['genre'] } });
      const documents = movies(300);
      await first.client.addDocuments('rep', documents);
      const amber = await agreedAnswer(first.client, 'rep', 'amber');
      t.deepEqual([...amber.ids].sort((a, b) => a - b), holding(documents, 'amber'), 'every document holding the word');
      t.deepEqual(amber.facets, { genre: { comedy: 10, drama: 10, horror: 10 } });
      t.is((await agreedAnswer(first.client, 'rep', '')).total, 300);

      // A write is seen by every replica; a deletion too.
      await first.client.addDocuments('rep', [{ id: 1000, title: 'kestrel amber', genre: 'drama' }]);
      t.deepEqual((await agreedAnswer(first.client, 'rep', 'kestrel')).ids, [1000]);
      t.is((await agreedAnswer(first.client, 'rep', 'amber')).ids.length, holding(documents, 'amber').length + 1);
      await first.client.run('DELETE', '/indexes/rep/documents/1000');
      t.deepEqual((await agreedAnswer(first.client, 'rep', 'kestrel')).ids, []);
      const before: Record<string, Answer> = {};
      for (const q of [...WORDS, 'film5', 'embr', 'cedar grove']) before[q] = await agreedAnswer(first.client, 'rep', q);
      return before;
    });

    // One shard, one file, written by its primary owner only (no temporary file left behind).
    t.deepEqual(snapshotFiles(dbPath, 'rep'), ['0.bin']);
    // Restored, not rebuilt, on BOTH replicas: each still knows document 5's old words, neither the new ones.
    rewriteStoredDocument(dbPath, 'rep', '5', { id: 5, title: 'zeppelin', genre: 'drama' });
    await withTestServer({ dbPath, ...REPLICATED }, async (second) => {
      for (const [q, answer] of Object.entries(before)) t.deepEqual(await agreedAnswer(second.client, 'rep', q), answer, q);
      t.deepEqual((await agreedAnswer(second.client, 'rep', 'zeppelin')).ids, []);
      await second.client.addDocuments('rep', [{ id: 2000, title: 'osprey', genre: 'comedy' }]);
      t.deepEqual((await agreedAnswer(second.client, 'rep', 'osprey')).ids, [2000]);

      await second.client.run('DELETE', '/indexes/rep');
      t.deepEqual(snapshotFiles(dbPath, 'rep').filter((name) => name.endsWith('.bin')), [], 'the index\'s snapshot file is removed');
      const gone = await second.client.post('/indexes/rep/search', { q: 'amber' });
      t.is(gone.status, 404);
    });
  }));

test('a replicated index rebuilt from LMDB (no snapshot) answers alike on both replicas', (t) =>
  withTempDir(async (dbPath) => {
    const before = await withTestServer({ dbPath, ...REPLICATED }, async (first) => {
      const documents = movies(200);
      await first.client.addDocuments('rep_b', documents);
      const before = await agreedAnswer(first.client, 'rep_b', 'birch');
      t.deepEqual([...before.ids].sort((a, b) => a - b), holding(documents, 'birch'));
      return before;
    });
    rmSync(join(dbPath, 'snapshots'), { recursive: true, force: true });
    await withTestServer({ dbPath, ...REPLICATED }, async (second) => {
      t.deepEqual(await agreedAnswer(second.client, 'rep_b', 'birch'), before);
    });
  }));
