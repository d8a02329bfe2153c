// Searches whose last word is a prefix of many rare words take those words' pairs from prefix pair
// tables (src/shard/pairs/prefix-pair-tables.ts): their hits and scores must be exactly those of reading
// every document (bitmapBuckets: false), before and after writes. Universes here are well above the
// size the bucket sort reads directly, so proximity splits them from the tables.
import test from 'ava';
import { ShardIndex } from '../../src/shard/shard-index.js';
import { compileIndexConfig } from '../../src/shard/index-config.js';
import { PREFIX_TABLE_POLICY } from '../../src/shard/pairs/prefix-pair-tables.js';
import { defaultSettings } from '../../src/settings/index-settings.js';
import { randomFrom } from './seeded-lcg.js';

const COMMON = ['alpha', 'beta', 'gamma', 'delta', 'kappa', 'sigma'];

/** Common words, and rare ones: 600 words starting with "r" (a few documents each), some with the typo-disabled field. */
function makeDocument(random: () => number, id: number): Record<string, unknown> {
  const word = () => (random() < 0.3 ? `r${Math.floor(random() * 600)}` : COMMON[Math.floor(COMMON.length * random() ** 2)]!);
  const text = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, word).join(random() < 0.1 ? '. ' : ' ');
  return { id, title: text(5), body: text(12), code: text(2) };
}

for (const settingsCase of ['plain', 'typo-disabled field'] as const) {
  test(`prefix queries rank exactly as reading every document (${settingsCase})`, (t) => {
    const policy = { ...PREFIX_TABLE_POLICY };
    Object.assign(PREFIX_TABLE_POLICY, { minDocuments: 1, buildAfterReadsShare: 2 });
    try {
      const random = randomFrom(settingsCase === 'plain' ? 21 : 22);
      const typoTolerance = { ...defaultSettings().typoTolerance, disableOnAttributes: ['code'] };
      const shard = new ShardIndex(compileIndexConfig(settingsCase === 'plain' ? {} : { typoTolerance }));
      const documentCount = 2500;
      for (let docId = 0; docId < documentCount; docId++) shard.upsert(docId, makeDocument(random, docId));
      shard.trim();
      let compared = 0;
      for (let k = 0; k < 90; k++) {
        if (k === 45) {
          // Writes after the tables were built: those documents are read, not taken from the tables.
          for (let n = 0; n < 200; n++) {
            const docId = Math.floor(random() * documentCount);
            if (random() < 0.2) shard.delete(docId);
            else shard.upsert(docId, random() < 0.3 ? { id: docId, title: `alpha r1new beta r12 r5 ${COMMON[n % 6]}` } : makeDocument(random, docId));
          }
        }
        const left = Array.from({ length: 1 + Math.floor(random() * 2) }, () => COMMON[Math.floor(random() * COMMON.length)]!);
        const q = `${left.join(' ')} ${['r', 'r1', 'r2', 'r12', 'r5', 'r10'][Math.floor(random() * 6)]!}`;
        const hitsWanted = 1 + Math.floor(random() * 30);
        const fast = shard.search({ q, hitsWanted, matchingStrategy: 'last' });
        const reference = shard.search({ q, hitsWanted, matchingStrategy: 'last', bitmapBuckets: false });
        t.deepEqual(fast.hits, reference.hits, `q=${JSON.stringify(q)} hitsWanted=${hitsWanted}`);
        compared += fast.hits.length;
      }
      t.true(compared > 500);
      t.true(shard.nearPairs.prefixTableBytes > 0, 'the prefix tables were used');
    } finally {
      Object.assign(PREFIX_TABLE_POLICY, policy);
    }
  });
}
