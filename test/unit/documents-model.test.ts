import test from 'ava';
import { flattenDocument, selectsField } from '../../src/documents/flatten.js';
import { projectDocument } from '../../src/documents/projection.js';
import { composeDocId, shardOf, shardOfDocId } from '../../src/documents/doc-ids.js';

test('flattening names nested fields with dots, arrays of objects gather child values', (t) => {
  const flat = flattenDocument({ a: { b: 1, c: [{ d: 2 }, { d: 3 }] }, e: 'x' });
  t.deepEqual([...flat.keys()], ['a', 'a.b', 'a.c', 'a.c.d', 'e']);
  t.deepEqual(flat.get('a.c.d'), [2, 3]);
  t.is(flat.get('a.b'), 1);
});

test('a parent selector covers its children, not look-alike siblings', (t) => {
  t.true(selectsField('a', 'a.b'));
  t.true(selectsField('*', 'anything'));
  t.false(selectsField('a', 'ab'));
});

test('projection keeps selected attributes and dotted paths, ignores unknown names', (t) => {
  const document = { id: 1, title: 'x', info: { year: 2000, director: 'y' } };
  t.deepEqual(projectDocument(document, ['title', 'info.year', 'missing']), { title: 'x', info: { year: 2000 } });
  t.is(projectDocument(document, null), document);
  t.deepEqual(projectDocument(document, []), {});
});

test('internal ids keep insertion order and reveal their shard', (t) => {
  const shard = shardOf('movie-42', 4);
  t.is(shardOf('movie-42', 4), shard);
  const first = composeDocId(0, shard, 4);
  const later = composeDocId(1, 0, 4);
  t.true(first < later);
  t.is(shardOfDocId(first, 4), shard);
});
