// The ranking rules reused from one search to the next (rules-from-settings.ts reusableRulesFor):
// only for term rules without sort criteria or custom field rules, per settings array, placeholder
// and matching strategy; and searches with reused rules answer as with rules made anew.
import test from 'ava';
import { reusableRulesFor, rulesFor, type RuleChoice } from '../../src/ranking/rules/rules-from-settings.js';
import { SearchScratch } from '../../src/ranking/search-scratch.js';
import { SortRule, type SortOrder } from '../../src/ranking/rules/sort.js';
import { DEFAULT_RANKING_RULES } from '../../src/settings/index-settings.js';
import { ShardEngine } from '../../src/shard/shard-engine.js';
import { defaultSettings } from '../../src/settings/index-settings.js';

/** One search's scratch, where reused rules are kept (SearchScratch.rules). */
const scratch = new SearchScratch();
const ORDER: SortOrder = { width: 1, groups: (universe) => [{ docIds: universe, key: [0] }][Symbol.iterator]() };

test('reusableRulesFor: the same rules for the same choice, others for another choice', (t) => {
  const rankingRules = [...DEFAULT_RANKING_RULES];
  const choice: RuleChoice = { rankingRules, placeholder: false, matchingStrategy: 'last', sort: null };
  const first = reusableRulesFor(choice, scratch);
  t.is(reusableRulesFor({ ...choice }, scratch), first);
  t.deepEqual(first.map((rule) => rule.name), rulesFor(choice).map((rule) => rule.name));
  t.not(reusableRulesFor({ ...choice, matchingStrategy: 'all' }, scratch), first);
  t.not(reusableRulesFor({ ...choice, placeholder: true }, scratch), first);
  t.not(reusableRulesFor({ ...choice, rankingRules: [...rankingRules] }, scratch), first, 'other settings, other rules');
  t.is(reusableRulesFor({ ...choice, sort: [] }, scratch), first, 'an empty sort is no sort');
});

test('reusableRulesFor: rules made anew when the query sorts or the settings have custom field rules', (t) => {
  const rankingRules = [...DEFAULT_RANKING_RULES];
  const sorted: RuleChoice = { rankingRules, placeholder: false, matchingStrategy: 'last', sort: ['price:asc'], sortOrder: () => ORDER };
  const once = reusableRulesFor(sorted, scratch);
  t.not(reusableRulesFor(sorted, scratch), once);
  t.true(once.some((rule) => rule instanceof SortRule));
  const custom: RuleChoice = { rankingRules: [...rankingRules, 'price:desc'], placeholder: false, matchingStrategy: 'last', sort: null, sortOrder: () => ORDER };
  const withCustom = reusableRulesFor(custom, scratch);
  t.not(reusableRulesFor(custom, scratch), withCustom);
  t.true(withCustom.some((rule) => rule.name === 'price:desc'));
});

test('searches one after the other with reused rules answer as each alone on a fresh engine', (t) => {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
  function* documents(): Generator<[number, Record<string, unknown>]> {
    for (let seq = 0; seq < 300; seq++) {
      const title = Array.from({ length: 2 + (seq % 4) }, (_, k) => words[(seq * 7 + k * 3) % words.length]).join(' ');
      yield [seq, { id: seq, title, overview: `${words[seq % words.length]} ${words[(seq + 2) % words.length]} story ${seq}` }];
    }
  }
  const settings = defaultSettings();
  const queries = ['alpha beta', 'gamma', 'delt', 'zeta alpha story', 'epsilon', 'alpha beta'];
  // The score plan is a function (made on first use): compared by the hits' scores it gives.
  const search = (engine: ShardEngine, q: string, matchingStrategy: 'last' | 'all') => {
    const result = engine.search({ indexUid: 'i', shards: [0], q, hitsWanted: 10, matchingStrategy, options: {} });
    return { ...result, scorePlan: result.hits.map((hit) => result.scorePlan?.().globalScore(hit.score)) };
  };
  const reused = new ShardEngine(0, 1);
  reused.loadIndex('i', 1, settings, documents());
  for (const matchingStrategy of ['last', 'all'] as const) {
    for (const q of queries) {
      const fresh = new ShardEngine(0, 1);
      fresh.loadIndex('i', 1, structuredClone(settings), documents());
      t.deepEqual(search(reused, q, matchingStrategy), search(fresh, q, matchingStrategy), `${q} (${matchingStrategy})`);
    }
  }
});
