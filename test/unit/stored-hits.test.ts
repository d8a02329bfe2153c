import test from 'ava';
import { hitDocuments, type StoredDocuments } from '../../src/front/search/stored-hits.js';
import type { HitMessage } from '../../src/protocol/messages.js';

const stored = (entries: [string, number, string][]): StoredDocuments & { reads: number } => {
  const byKey = new Map(entries.map(([uid, docId, json]) => [`${uid}/${docId}`, json]));
  const documents = { reads: 0, get: ([uid, docId]: [string, number]) => { documents.reads++; return byKey.get(`${uid}/${docId}`); } };
  return documents;
};
const hit = (docId: number, document: string | null): HitMessage => ({ docId, score: [0], document });

test('hitDocuments reads the stored JSON of the hits the worker left out, in order, and only those', (t) => {
  const documents = stored([['movies', 1, '{"id":1}'], ['movies', 3, '{"id":3}'], ['books', 2, '{"id":"other index"}']]);
  t.deepEqual(hitDocuments(documents, 'movies', [hit(3, null), hit(2, '{"id":2,"title":"shaped"}'), hit(1, null)]),
    ['{"id":3}', '{"id":2,"title":"shaped"}', '{"id":1}']);
  t.is(documents.reads, 2);
});

test('hitDocuments leaves out a hit whose document was deleted since the worker ranked it', (t) => {
  const documents = stored([['movies', 1, '{"id":1}']]);
  t.deepEqual(hitDocuments(documents, 'movies', [hit(9, null), hit(1, null)]), ['{"id":1}']);
});
