import test from 'ava';
import { ERROR_CODES, SkeinError, asSkeinError, fromBody } from '../../src/errors/index.js';

test('status and type come from the one table', (t) => {
  const error = new SkeinError('index_not_found', 'Index `movies` not found.');
  t.is(error.status, 404);
  t.deepEqual(error.toBody(), {
    message: 'Index `movies` not found.', code: 'index_not_found', type: 'invalid_request',
    link: 'https://docs.meilisearch.com/errors#index_not_found',
  });
  t.deepEqual(ERROR_CODES.payload_too_large, [413, 'invalid_request']);
  t.deepEqual(ERROR_CODES.missing_authorization_header, [401, 'auth']);
});

test('unexpected throws become internal errors and bodies cross threads intact', (t) => {
  t.is(asSkeinError(new TypeError('boom')).code, 'internal');
  const rebuilt = fromBody({ code: 'invalid_document_id', message: 'bad', type: 'internal', link: '' });
  t.is(rebuilt.status, 400);
  t.is(rebuilt.type, 'invalid_request');
  t.is(fromBody({ code: 'no_such_code', message: 'x', type: 'internal', link: '' }).code, 'internal');
});

test('withoutStack: the same error without a captured stack, and the stack limit is restored', (t) => {
  const limit = Error.stackTraceLimit;
  const error = SkeinError.withoutStack('too_many_search_requests', 'Too many search requests running at the same time: 1000. Retry after 10s.');
  t.is(error.status, 503);
  t.is(error.toBody().code, 'too_many_search_requests');
  t.is(error.stack?.split('\n').length, 1, 'only the message line');
  t.is(Error.stackTraceLimit, limit);
  t.true(new SkeinError('internal', 'x').stack!.split('\n').length > 1);
});
