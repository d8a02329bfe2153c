import test from 'ava';
import { paginationJson, searchWindow } from '../../src/front/http/pagination.js';

const window = (request: Partial<{ offset: number; limit: number; page: number | null; hitsPerPage: number | null }>, max = 1000) =>
  searchWindow({ offset: 0, limit: 20, page: null, hitsPerPage: null, ...request }, max);

test('offset/limit are clamped by maxTotalHits', (t) => {
  t.like(window({ offset: 10, limit: 5 }), { mode: 'offset', offset: 10, limit: 5, hitsWanted: 15 });
  t.like(window({ offset: 990, limit: 20 }), { offset: 990, limit: 10, hitsWanted: 1000 });
  t.like(window({ offset: 2000, limit: 20 }), { offset: 1000, limit: 0, hitsWanted: 1000 });
  t.like(window({ offset: 0, limit: 50 }, 30), { offset: 0, limit: 30 });
});

test('offset mode response members', (t) => {
  t.is(paginationJson(window({ offset: 2, limit: 3 }), 5000), '"limit":3,"offset":2,"estimatedTotalHits":1000');
  t.is(paginationJson(window({}), 7), '"limit":20,"offset":0,"estimatedTotalHits":7');
});

test('page mode: defaults, offsets and exhaustive totals', (t) => {
  t.like(window({ page: 2 }), { mode: 'page', page: 2, hitsPerPage: 20, offset: 20, limit: 20, hitsWanted: 40 });
  t.like(window({ hitsPerPage: 5 }), { page: 1, hitsPerPage: 5, offset: 0, limit: 5 });
  t.like(window({ page: 3, hitsPerPage: 10, offset: 99, limit: 1 }), { offset: 20, limit: 10 });
  t.is(paginationJson(window({ page: 1, hitsPerPage: 20 }), 976), '"hitsPerPage":20,"page":1,"totalPages":49,"totalHits":976');
  t.is(paginationJson(window({ page: 1, hitsPerPage: 20 }), 5000), '"hitsPerPage":20,"page":1,"totalPages":50,"totalHits":1000');
});

test('page 0 and hitsPerPage 0 return no hits but counts', (t) => {
  t.like(window({ page: 0 }), { limit: 0, hitsWanted: 0 });
  t.is(paginationJson(window({ page: 0 }), 30), '"hitsPerPage":20,"page":0,"totalPages":2,"totalHits":30');
  t.like(window({ hitsPerPage: 0 }), { limit: 0 });
  t.is(paginationJson(window({ hitsPerPage: 0 }), 30), '"hitsPerPage":0,"page":1,"totalPages":0,"totalHits":30');
});

test('pages beyond maxTotalHits are empty', (t) => {
  t.like(window({ page: 60, hitsPerPage: 20 }), { offset: 1000, limit: 0 });
});
