// SmallestValues (smallest-values.ts) against sorting: a value is refused exactly when k values seen
// before it are strictly smaller.
import test from 'ava';
import { SmallestValues } from '../../src/ranking/smallest-values.js';

test('offer refuses exactly the values with k strictly smaller ones before them (new, or reset after other values)', (t) => {
  let reused = new SmallestValues(0);
  let state = 3;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let round = 0; round < 500; round++) {
    const k = Math.floor(random() * 8);
    const values = Array.from({ length: Math.floor(random() * 40) }, () => Math.floor(random() * (1 + random() * 20)));
    // Every other round the one of the round before, reset: it must forget everything it held.
    const smallest = round % 2 === 1 ? reused.reset(k) : (reused = new SmallestValues(k));
    values.forEach((value, index) => {
      const smallerBefore = values.slice(0, index).filter((before) => before < value).length;
      // Only the k smallest before count: refused when they all are below the value.
      const keptBefore = values.slice(0, index).sort((a, b) => a - b).slice(0, k);
      const expected = !(keptBefore.length === k && keptBefore.every((before) => before < value));
      t.is(smallest.offer(value), expected, `round ${round} k ${k} value ${value} (${smallerBefore} smaller before)`);
    });
  }
});

test('largestKept: Infinity until k values came, then the largest of the k smallest (new, or reset)', (t) => {
  let reused = new SmallestValues(0);
  let state = 5;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let round = 0; round < 300; round++) {
    const k = Math.floor(random() * 6);
    const smallest = round % 2 === 1 ? reused.reset(k) : (reused = new SmallestValues(k));
    const seen: number[] = [];
    for (let n = 0; n < 30; n++) {
      const value = Math.floor(random() * 20);
      smallest.offer(value);
      seen.push(value);
      const kept = [...seen].sort((a, b) => a - b).slice(0, k);
      const expected = k === 0 ? -Infinity : kept.length < k ? Infinity : kept[k - 1]!;
      t.is(smallest.largestKept, expected, `round ${round} k ${k}`);
    }
  }
});
