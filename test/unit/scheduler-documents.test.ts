import test from 'ava';
import { documentIdOf, validDocumentId } from '../../src/documents/document-id.js';
import { inferPrimaryKey, resolvePrimaryKey } from '../../src/documents/primary-key.js';
import { SkeinError } from '../../src/errors/index.js';

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as SkeinError).code;
  }
  return null;
};

test('inference: exactly one top-level key ending with id, case-insensitively', (t) => {
  t.is(inferPrimaryKey({ title: 'x', movie_ID: 1 }), 'movie_ID');
  t.is(inferPrimaryKey({ paid: true }), 'paid');
  t.is(codeOf(() => inferPrimaryKey({ title: 'x' })), 'index_primary_key_no_candidate_found');
  t.is(codeOf(() => inferPrimaryKey(undefined)), 'index_primary_key_no_candidate_found');
  t.is(codeOf(() => inferPrimaryKey({ uid: 1, id: 2 })), 'index_primary_key_multiple_candidates_found');
});

test('resolution: the stored key wins and cannot be contradicted', (t) => {
  t.is(resolvePrimaryKey('id', null, { sku: 1 }), 'id');
  t.is(resolvePrimaryKey('id', 'id', undefined), 'id');
  t.is(codeOf(() => resolvePrimaryKey('id', 'sku', undefined)), 'index_primary_key_already_exists');
  t.is(resolvePrimaryKey(null, 'sku', { id: 1 }), 'sku');
  t.is(resolvePrimaryKey(null, null, { id: 1 }), 'id');
});

test('document ids: integers as decimal strings, restricted strings, nested keys', (t) => {
  t.is(documentIdOf({ id: 12 }, 'id'), '12');
  t.is(documentIdOf({ id: -3 }, 'id'), '-3');
  t.is(documentIdOf({ id: 'a_B-9' }, 'id'), 'a_B-9');
  t.is(documentIdOf({ product: { id: 7 } }, 'product.id'), '7');
  t.is(documentIdOf({ 'product.id': 'x' }, 'product.id'), 'x');
  for (const bad of [1.5, true, null, [1], { a: 1 }, '', 'a b', 'é', 'x'.repeat(512)]) t.is(codeOf(() => validDocumentId(bad)), 'invalid_document_id', JSON.stringify(bad));
  t.is(validDocumentId('x'.repeat(511)).length, 511);
  t.is(codeOf(() => documentIdOf({ name: 'a' }, 'id')), 'missing_document_id');
});
