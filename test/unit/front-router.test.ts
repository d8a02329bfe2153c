import test from 'ava';
import { Router, splitPath } from '../../src/front/router.js';

const router = new Router<string>()
  .add('GET', '/indexes', 'list')
  .add('GET', '/indexes/{indexUid}', 'get')
  .add('GET', '/indexes/{indexUid}/documents/{documentId}', 'getDocument')
  .add('POST', '/indexes/{indexUid}/documents/delete-batch', 'deleteBatch')
  .add('DELETE', '/indexes/{indexUid}/documents/{documentId}', 'deleteDocument');

test('matches literal paths and extracts parameters', (t) => {
  t.deepEqual(router.lookup('GET', '/indexes'), { kind: 'found', match: { route: 'list', params: {} } });
  t.deepEqual(router.lookup('GET', '/indexes/movies/documents/42'),
    { kind: 'found', match: { route: 'getDocument', params: { indexUid: 'movies', documentId: '42' } } });
});

test('a trailing slash is ignored and segments are percent-decoded', (t) => {
  t.deepEqual(router.lookup('GET', '/indexes/'), { kind: 'found', match: { route: 'list', params: {} } });
  t.deepEqual(router.lookup('GET', '/indexes/bad%20uid'), { kind: 'found', match: { route: 'get', params: { indexUid: 'bad uid' } } });
  t.deepEqual(splitPath('/a//b/'), ['a', 'b']);
});

test('literal segments win over parameters', (t) => {
  const found = router.lookup('POST', '/indexes/movies/documents/delete-batch');
  t.is(found.kind === 'found' ? found.match.route : null, 'deleteBatch');
  const deleteOne = router.lookup('DELETE', '/indexes/movies/documents/delete-batch');
  t.is(deleteOne.kind === 'found' ? deleteOne.match.route : null, 'deleteDocument');
});

test('known path with another method is methodNotAllowed, unknown path notFound', (t) => {
  t.deepEqual(router.lookup('DELETE', '/indexes'), { kind: 'methodNotAllowed' });
  t.deepEqual(router.lookup('GET', '/nope'), { kind: 'notFound' });
  t.deepEqual(router.lookup('GET', '/indexes/a/b'), { kind: 'notFound' });
});
