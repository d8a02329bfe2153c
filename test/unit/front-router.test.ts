import test from 'ava';
import { Router } from '../../src/front/http/router.js';
import { allRoutes } from '../../src/front/routes.js';
import { HandWrittenRouter } from '../../bench/hand-written-router.js';

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
  t.deepEqual(router.lookup('GET', '//indexes//movies/'), { kind: 'found', match: { route: 'get', params: { indexUid: 'movies' } } });
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

test('a malformed escape is kept as typed; # and ? are path characters (uWS took the query off)', (t) => {
  t.deepEqual(router.lookup('GET', '/indexes/%zz'), { kind: 'found', match: { route: 'get', params: { indexUid: '%zz' } } });
  t.deepEqual(router.lookup('GET', '/indexes/movies/documents/a#b'),
    { kind: 'found', match: { route: 'getDocument', params: { indexUid: 'movies', documentId: 'a#b' } } });
  t.deepEqual(router.lookup('GET', '/indexes/movies/documents/a?b'),
    { kind: 'found', match: { route: 'getDocument', params: { indexUid: 'movies', documentId: 'a?b' } } });
  t.deepEqual(router.lookup('GET', '/indexes/movies/documents/a%2Fb'),
    { kind: 'found', match: { route: 'getDocument', params: { indexUid: 'movies', documentId: 'a/b' } } });
  t.deepEqual(router.lookup('PUT', '/indexes/%zz'), { kind: 'methodNotAllowed' });
});

test('every route of the server is found as the hand-written router found it, on hostile paths too', (t) => {
  const before = new HandWrittenRouter<unknown>();
  const now = new Router<unknown>();
  for (const route of allRoutes()) {
    before.add(route.method, route.path, route);
    now.add(route.method, route.path, route);
  }
  const paths = ['/', '//', '/indexes', '/indexes/', '/indexes//', '//indexes', '/indexes/movies', '/indexes//movies',
    '/indexes/movies/search', '/indexes/movies/search/', '/indexes/mo%20vies/search', '/indexes/a%2Fb/search', '/indexes/%zz/search',
    '/ind%65xes/movies/search', '/indexes/movies/documents/delete-batch', '/indexes/movies/documents/42', '/indexes/movies/documents/%',
    '/indexes/movies/documents/a;b', '/indexes/movies/documents/a#b', '/indexes/movies/documents/a?b', '/indexes/movies/documents/%zz%20',
    '/tasks/12', '/tasks/cancel', '/keys/abc', '/INDEXES', '/indexes/movies/search/extra', '/nope', '/metrics', '/indexes/movies/settings',
    '/indexes/%E2%82%AC/search', '/indexes/€/search', '/indexes/movies%2Fsearch', '/indexes/./search', '/indexes/movies/documents/%252F',
    '/experimental-features', '/multi-search/', '/stats', '/version', '/health',
    // find-my-way's default maxParamLength (100) answered 404 to these.
    `/indexes/${'i'.repeat(500)}/search`, `/indexes/movies/documents/${'d'.repeat(600)}`, `/indexes/movies/documents/${'%41'.repeat(300)}`];
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'FOO']) {
    for (const path of paths) t.deepEqual(now.lookup(method, path), before.lookup(method, path), `${method} ${path}`);
  }
});
