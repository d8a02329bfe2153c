import test from 'ava';
import { PendingTable } from '../../src/front/search/pending-table.js';

test('holds, finds and forgets values by id; size counts what is held', (t) => {
  const table = new PendingTable<string>(4);
  table.set(1, 'a');
  table.set(2, 'b');
  t.is(table.get(1), 'a');
  t.is(table.get(2), 'b');
  t.is(table.get(3), undefined);
  t.is(table.size, 2);
  table.delete(1);
  table.delete(1);
  t.is(table.get(1), undefined);
  t.is(table.size, 1);
  table.set(2, 'c');
  t.is(table.get(2), 'c');
  t.is(table.size, 1);
});

test('an id landing on a held slot grows the table: old and new ids stay distinct', (t) => {
  const table = new PendingTable<number>(4);
  // 5 and 1 share slot 1 of 4, 9 shares it too at 8 slots: the table must double twice.
  table.set(1, 10);
  table.set(5, 50);
  table.set(9, 90);
  t.deepEqual([table.get(1), table.get(5), table.get(9), table.get(13)], [10, 50, 90, undefined]);
  t.is(table.size, 3);
  // An id whose slot is held by another id is not that id.
  table.delete(13);
  t.is(table.size, 3);
});

test('many ids in flight, answered out of order, with ids past 2^31', (t) => {
  const table = new PendingTable<number>(2);
  const start = 0xffffff00;
  for (let id = start; id < start + 200; id++) table.set(id >>> 0, id);
  for (let id = start + 199; id >= start; id -= 2) table.delete(id >>> 0);
  t.is(table.size, 100);
  for (let id = start; id < start + 200; id++) t.is(table.get(id >>> 0), (id - start) % 2 === 0 ? id : undefined);
});

test('drain gives every entry and leaves the table empty', (t) => {
  const table = new PendingTable<string>(8);
  table.set(3, 'x');
  table.set(4, 'y');
  t.deepEqual(table.drain().sort(), [[3, 'x'], [4, 'y']]);
  t.is(table.size, 0);
  t.is(table.get(3), undefined);
});
