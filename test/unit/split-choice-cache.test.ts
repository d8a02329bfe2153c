// The front's split choices (front/search/split-choice-cache.ts) and the choice rule (protocol/split-choice.ts).
import test from 'ava';
import { SplitChoiceCache } from '../../src/front/search/split-choice-cache.js';
import { CommitFence } from '../../src/protocol/commit-fence.js';
import { addSplitCounts, chooseSplit, chooseSplits } from '../../src/protocol/split-choice.js';

test('the choice: most documents summed over the workers, the first point on a tie, none without documents', (t) => {
  const sums = new Map<string, Map<number, number>>();
  addSplitCounts(sums, { carpet: [3, 2, 4, 3], bookend: [4, 2], none: [] });
  addSplitCounts(sums, { carpet: [3, 2], bookend: [3, 2] });
  t.deepEqual(chooseSplits(sums), [['carpet', 3], ['bookend', 3], ['none', 0]]);
  t.is(chooseSplit(new Map([[5, 0], [2, 0]])), 0);
});

test('kept choices: found by the query words as written (case, punctuation, diacritics); words of other indexes not', (t) => {
  const cache = new SplitChoiceCache(new CommitFence());
  t.is(cache.choicesFor('books', 'carpet'), null);
  cache.keep('books', [['carpet', 3], ['rainbow', 0]], cache.generation());
  t.deepEqual(cache.choicesFor('books', 'Carpet, RAINBÓW! carpet'), [['carpet', 3], ['rainbow', 0]]);
  t.is(cache.choicesFor('books', 'car pet'), null);
  t.is(cache.choicesFor('movies', 'carpet'), null);
  // Hostile words are plain keys.
  cache.keep('books', [['__proto__', 2], ['constructor', 9]], cache.generation());
  t.deepEqual(cache.choicesFor('books', 'constructor toString __proto__'), [['constructor', 9]], 'a run of letters is `proto`');
  t.is(cache.choicesFor('books', 'hasOwnProperty valueOf'), null);
  t.is(cache.size, 4);
});

test('kept choices are dropped on index changes, not kept from counts gathered across a drop, and not used while a commit is unhandled', (t) => {
  const fence = new CommitFence();
  const cache = new SplitChoiceCache(fence);
  const before = cache.generation();
  cache.forget();
  cache.keep('books', [['carpet', 3]], before);
  t.is(cache.choicesFor('books', 'carpet'), null, 'counted before the drop');
  cache.keep('books', [['carpet', 3]], cache.generation());
  t.deepEqual(cache.choicesFor('books', 'carpet'), [['carpet', 3]]);
  fence.begin();
  t.is(cache.choicesFor('books', 'carpet'), null, 'a commit under way');
  cache.keep('books', [['rainbow', 4]], cache.generation());
  fence.posted();
  fence.end();
  t.is(cache.choicesFor('books', 'carpet'), null, 'posted, not handled yet');
  fence.handled();
  cache.forget();
  t.is(cache.choicesFor('books', 'carpet rainbow'), null);
  t.is(cache.size, 0);
});
