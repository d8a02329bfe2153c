// byAscendingId (scored-run.ts): the rows of the classes read, merged in ascending id order, only
// the kept ones, each with its own score row.
import test from 'ava';
import { byAscendingId } from '../../src/ranking/scores/scored-run.js';

test('byAscendingId merges the classes by id, moving each row along, and leaves out the rows keep refuses', (t) => {
  const read = [Uint32Array.of(5, 9, 40), Uint32Array.of(1, 7), Uint32Array.of(3)];
  // Two rules: row r scores [r, 100 + r].
  const rows = 6;
  const scores = new Float64Array(rows * 2);
  for (let r = 0; r < rows; r++) { scores[r * 2] = r; scores[r * 2 + 1] = 100 + r; }
  const all = byAscendingId(read, scores, 2);
  t.deepEqual([...all.docIds], [1, 3, 5, 7, 9, 40]);
  t.deepEqual([...all.scores], [3, 103, 5, 105, 0, 100, 4, 104, 1, 101, 2, 102]);
  const kept = byAscendingId(read, scores, 2, (row) => row % 2 === 0);
  t.deepEqual([...kept.docIds], [5, 7, 40]);
  t.deepEqual([...kept.scores], [0, 100, 4, 104, 2, 102]);
  const none = byAscendingId(read, scores, 2, () => false);
  t.is(none.docIds.length, 0);
  t.is(none.scores.length, 0);
});
