import test from 'ava';
import { createDataset, type DatasetSpec } from '../../bench/dataset.js';
import { movieGenres, type MovieDocument } from '../../bench/movie-dataset.js';
import { buildVocabulary } from '../../bench/vocabulary.js';

const spec: DatasetSpec = { kind: 'movies', documents: 2000, seed: 42, vocabularySize: 5000, zipfExponent: 1 };
const wordsOf = (text: string) => text.toLowerCase().match(/[a-z]+/g) ?? [];

test('the vocabulary is deterministic, distinct, lowercase, and short at the top', (t) => {
  const vocabulary = buildVocabulary(5000, 9);
  t.deepEqual(vocabulary, buildVocabulary(5000, 9));
  t.notDeepEqual(vocabulary, buildVocabulary(5000, 10));
  t.is(new Set(vocabulary).size, 5000);
  t.true(vocabulary.every((word) => /^[a-z]{2,12}$/.test(word)));
  const meanLength = (words: string[]) => words.reduce((sum, word) => sum + word.length, 0) / words.length;
  t.true(meanLength(vocabulary.slice(0, 50)) < meanLength(vocabulary.slice(2000)));
});

test('documents are deterministic and independent of generation order', (t) => {
  const first = createDataset(spec);
  const second = createDataset(spec);
  t.deepEqual(second.documentAt(1234), first.documentAt(1234));
  const forward = [0, 1, 2].map((i) => first.documentAt(i));
  const backward = [2, 1, 0].map((i) => second.documentAt(i)).reverse();
  t.deepEqual(backward, forward);
  t.notDeepEqual(createDataset({ ...spec, seed: 43 }).documentAt(0), first.documentAt(0));
});

test('documents have the movie shape', (t) => {
  const dataset = createDataset(spec);
  for (let i = 0; i < 500; i++) {
    const document = dataset.documentAt(i) as MovieDocument;
    t.is(document.id, i);
    const titleWords = document.title.split(' ');
    t.true(titleWords.length >= 3 && titleWords.length <= 8);
    t.deepEqual(titleWords.map((word) => word.toLowerCase()), dataset.queryableWordsAt(i));
    const overviewWords = wordsOf(document.overview).length;
    t.true(overviewWords >= 20 && overviewWords <= 60, `overview has ${overviewWords} words`);
    t.true(document.overview.endsWith('.'));
    t.true((movieGenres as readonly string[]).includes(document.genre));
    t.true(document.year >= 1920 && document.year <= 2024);
    t.true(document.price >= 0.99 && document.price <= 49.99);
    t.true(document.rating >= 1 && document.rating <= 10);
    t.true(Math.abs(document._geo.lat) <= 90 && Math.abs(document._geo.lng) <= 180);
  }
});

test('generated text is Zipf-ish: frequency falls with rank, the top word about twice the second', (t) => {
  const dataset = createDataset(spec);
  const counts = new Map<string, number>();
  for (let i = 0; i < spec.documents; i++) {
    const document = dataset.documentAt(i) as MovieDocument;
    for (const word of [...wordsOf(document.title), ...wordsOf(document.overview)]) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const count = (rank: number) => counts.get(dataset.vocabulary[rank]) ?? 0;
  t.true(Math.abs(count(0) / count(1) - 2) < 0.3, `ratio ${count(0) / count(1)}`);
  t.true(count(0) > count(9) * 7 && count(0) < count(9) * 13, `rank 1 ${count(0)} vs rank 10 ${count(9)}`);
  t.true(count(9) > count(99));
});

test('genres are skewed, not uniform', (t) => {
  const dataset = createDataset(spec);
  const counts = new Map<string, number>();
  for (let i = 0; i < spec.documents; i++) {
    const { genre } = dataset.documentAt(i) as MovieDocument;
    counts.set(genre, (counts.get(genre) ?? 0) + 1);
  }
  t.true((counts.get('Drama') ?? 0) > (counts.get('Sport') ?? 0) * 3);
});

test('an unknown kind is refused', (t) => {
  t.throws(() => createDataset({ ...spec, kind: 'books' }), { message: /unknown dataset kind "books"/ });
});
