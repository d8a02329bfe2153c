import test from 'ava';
import { DocOffsetTable } from '../../src/shard/documents/doc-offset-table.js';

test('DocOffsetTable agrees with a Map under random inserts, updates and deletes (with growth and wrap-around)', (t) => {
  let seed = 3;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const table = new DocOffsetTable();
  const reference = new Map<number, number>();
  for (let step = 0; step < 60_000; step++) {
    // Ids with a shard stride share their low bits, the case the hash must spread.
    const key = Math.floor(random() * 5000) * 8 + 3;
    const roll = random();
    if (roll < 0.55) {
      const value = Math.floor(random() * 2 ** 30);
      table.set(key, value);
      reference.set(key, value);
    } else if (roll < 0.85) {
      t.is(table.delete(key), reference.delete(key));
    } else {
      t.is(table.get(key), reference.get(key) ?? -1);
    }
  }
  t.is(table.size, reference.size);
  for (const [key, value] of reference) if (table.get(key) !== value) t.fail(`key ${key}`);
  let visited = 0;
  table.forEach((key, value) => {
    visited++;
    if (reference.get(key) !== value) t.fail(`forEach key ${key}`);
  });
  t.is(visited, reference.size);
  t.false(table.has(1));
});
