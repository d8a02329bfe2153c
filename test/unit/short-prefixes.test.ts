// Work done ahead for short prefixes (the first letters of as-you-type queries): which prefixes the
// near-pair build makes pair tables for (prefix-pair-tables.ts planShortPrefixes).
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { planShortPrefixes, PREFIX_TABLE_POLICY, SHORT_PREFIX_POLICY } from '../../src/shard/prefix-pair-tables.js';
import { exactAttributeKey } from '../../src/shard/derivations.js';

/** 100 documents: "st…" words in 30 of them, "sp…" in 5, "qu…" in 12, plus one typo-disabled spelling. */
function prefixShard(): ShardIndex {
  const shard = new ShardIndex(compileIndexConfig({}));
  for (let docId = 0; docId < 100; docId++) {
    const words = ['filler'];
    if (docId < 30) words.push(`st${docId % 7}a`);
    if (docId >= 30 && docId < 35) words.push(`sp${docId}`);
    if (docId >= 40 && docId < 52) words.push(`qu${docId % 3}`);
    shard.upsert(docId, { title: words.join(' ') });
  }
  // A word of a typo-disabled attribute, as the shard interns it: its prefixes are not its own.
  const marked = shard.vocabulary.intern(exactAttributeKey('zzmarked'));
  for (let docId = 60; docId < 100; docId++) shard.vocabulary.addDocument(marked, docId);
  shard.flushWrites();
  return shard;
}

function withPolicies<T extends object>(policy: T, values: Partial<T>, run: () => void): void {
  const saved = { ...policy };
  Object.assign(policy, values);
  try {
    run();
  } finally {
    Object.assign(policy, saved);
  }
}

test('the near-pair build plans one-letter prefixes from minDocuments, longer ones only from a share of the shard', (t) => {
  const shard = prefixShard();
  const slotOfWord = new Int32Array(shard.vocabulary.size).fill(-1);
  slotOfWord[shard.vocabulary.idOf('filler')!] = 0;
  withPolicies(PREFIX_TABLE_POLICY, { minDocuments: 4 }, () => withPolicies(SHORT_PREFIX_POLICY, { longerMinShare: 1 / 8 }, () => {
    const plan = planShortPrefixes(shard.vocabulary, slotOfWord, '\u0001\u0001', 100);
    // "st" (30 documents) and "qu" (12) reach 12.5 documents... "qu" does not; "sp" (5) passes only as part of "s".
    t.deepEqual(plan.prefixes, ['st', 'q', 's']);
    const st = plan.prefixes.indexOf('st');
    t.is(plan.tableOfWord[1]![shard.vocabulary.idOf('st3a')!], st);
    t.is(plan.tableOfWord[1]![shard.vocabulary.idOf('sp31')!], -1);
    t.is(plan.tableOfWord[0]![shard.vocabulary.idOf('sp31')!], plan.prefixes.indexOf('s'));
    t.is(plan.tableOfWord[0]![shard.vocabulary.idOf('filler')!], -1, 'a slotted word has no prefix table');
  }));
  withPolicies(PREFIX_TABLE_POLICY, { minDocuments: 4 }, () => withPolicies(SHORT_PREFIX_POLICY, { longerMinShare: 1 / 10 }, () => {
    t.deepEqual(planShortPrefixes(shard.vocabulary, slotOfWord, '\u0001\u0001', 100).prefixes, ['qu', 'st', 'q', 's']);
  }));
});
