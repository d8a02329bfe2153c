// The objects a search reads in its hot loops keep one map however they were made or filled: ordered
// parts with and without lowerBounds, a pair lookup memo before and after its lookups fill it, a match
// profile's occurrence lists before and after an occurrence too big for a small integer. Two maps
// at a read meant a deopt and a second TurboFan compile in the first seconds after a load (V8's own
// map check, in a child process with --allow-natives-syntax).
import test from 'ava';
import { execFileSync } from 'node:child_process';

test('ordered parts, pair lookup memos and occurrence lists keep one map', (t) => {
  const layers = new URL('../../src/ranking/scores/score-layers.js', import.meta.url).href;
  const pairs = new URL('../../src/shard/pairs/near-pair-postings.js', import.meta.url).href;
  const profiles = new URL('../../src/ranking/match-profile.js', import.meta.url).href;
  const script = `import { orderedPart } from ${JSON.stringify(layers)};
import { emptyPairLookupMemo } from ${JSON.stringify(pairs)};
import { addOccurrence, emptyProfile, packOccurrence } from ${JSON.stringify(profiles)};
import roaring from 'roaring';
const profile = emptyProfile(2);
addOccurrence(profile, 0, packOccurrence(0, 1, 0, 0, true));
addOccurrence(profile, 1, packOccurrence(3, 700, 2, 1, false));
const fresh = emptyProfile(1).occurrences[0];
const docs = new roaring.RoaringBitmap32([1, 2]);
const scored = orderedPart(docs, 3);
const unscored = orderedPart(docs, null);
const bounded = orderedPart(docs, null, () => []);
const empty = emptyPairLookupMemo();
const filled = emptyPairLookupMemo();
filled.frequentLeft = [1];
filled.frequentRight = [2, 3];
filled.byCost[2] = { docs };
filled.knownCosts = { docIds: new Uint32Array(1), costs: new Uint8Array(1) };
console.log(JSON.stringify({ parts: %HaveSameMap(scored, unscored) && %HaveSameMap(unscored, bounded), memos: %HaveSameMap(empty, filled),
  byCost: %HaveSameMap(empty.byCost, filled.byCost),
  occurrences: %HaveSameMap(profile.occurrences[0], fresh) && %HaveSameMap(profile.occurrences[1], fresh) }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: new URL('../../..', import.meta.url) })) as
    Record<'parts' | 'memos' | 'byCost' | 'occurrences', boolean>;
  t.deepEqual(out, { parts: true, memos: true, byCost: true, occurrences: true });
});
