// The ranking rules of one search, in settings.rankingRules order. Term rules are skipped for a
// placeholder search; rules that would do nothing for this query are left out, so they add no entry
// to the hit scores (scores of all hits of one query still line up: same rules, same order).
import type { SearchScratch } from '../search-scratch.js';
import type { MatchingStrategyName } from '../../protocol/messages.js';
import { attributeRankRule } from './attribute-rank.js';
import { attributeRule } from './attribute.js';
import { parseCustomFieldRule } from './custom-field.js';
import { exactnessRule } from './exactness.js';
import { proximityRule } from './proximity.js';
import type { RankingRule } from '../ranking-rule.js';
import { SortRule, type SortOrder } from './sort.js';
import { TypoRule } from './typo.js';
import { wordPositionRule } from './word-position.js';
import { WordsRule } from './words.js';

export interface RuleChoice {
  rankingRules: readonly string[];
  placeholder: boolean;
  matchingStrategy: MatchingStrategyName;
  /** The query's sort parameter; null or empty when absent. */
  sort: readonly string[] | null;
  /**
   * The shard's order for one sort criterion (`price:asc`, `_geoPoint(1, 2):desc`), used by the
   * query's sort and by custom `field:asc|desc` rules; without it sort rules keep the id order.
   */
  sortOrder?: (criterion: string) => SortOrder | null;
}

/** One group, the whole universe: the order when the shard supplies none. */
const UNSORTED: SortOrder = { width: 1, groups: (universe) => [{ docIds: universe, key: [0] }][Symbol.iterator]() };

const TERM_RULES: Record<string, (strategy: MatchingStrategyName) => RankingRule> = {
  words: (strategy) => new WordsRule(strategy),
  typo: () => new TypoRule(),
  proximity: () => proximityRule(),
  attributeRank: () => attributeRankRule(),
  wordPosition: () => wordPositionRule(),
  attribute: () => attributeRule(),
  exactness: () => exactnessRule(),
};

/**
 * rulesFor, the same rules again for the next search with the same choice when they are term rules
 * only (no sort criteria, no custom field rules: those depend on the query or the shard's orders).
 * Kept in the search's scratch (SearchScratch.rules), by settings' rankingRules (the array: a settings
 * change makes a new one), then placeholder + matching strategy: term rules keep no state from one
 * search to the next (start resets them, end drops what they held), but the rules of one search must
 * not be used by another while it runs, and a search nested in another's yield point has a scratch of
 * its own. Making the six rules (and their closures) per query showed in profiles and its garbage.
 * The array is read-only.
 */
export function reusableRulesFor(choice: RuleChoice, scratch: SearchScratch): readonly RankingRule[] {
  if (choice.sort !== null && choice.sort.length > 0) return rulesFor(choice);
  const reusedRules = scratch.rules;
  let byChoice = reusedRules.get(choice.rankingRules);
  if (byChoice === undefined) {
    byChoice = choice.rankingRules.every((name) => Object.hasOwn(TERM_RULES, name) || name === 'sort') ? new Map() : null;
    reusedRules.set(choice.rankingRules, byChoice);
  }
  if (byChoice === null) return rulesFor(choice);
  const key = `${choice.placeholder ? 'p' : 'q'}${choice.matchingStrategy}`;
  let rules = byChoice.get(key);
  if (rules === undefined) byChoice.set(key, (rules = rulesFor(choice)));
  return rules;
}

export function rulesFor(choice: RuleChoice): RankingRule[] {
  const rules: RankingRule[] = [];
  const seen = new Set<string>();
  for (const name of choice.rankingRules) {
    if (seen.has(name)) continue;
    seen.add(name);
    const termRule = TERM_RULES[name];
    if (termRule) {
      if (!choice.placeholder) rules.push(termRule(choice.matchingStrategy));
    } else if (name === 'sort') {
      if (!choice.sort || choice.sort.length === 0) continue;
      if (!choice.sortOrder) rules.push(new SortRule('sort', UNSORTED));
      else for (const criterion of choice.sort) rules.push(new SortRule(`sort:${criterion}`, choice.sortOrder(criterion) ?? UNSORTED));
    } else if (parseCustomFieldRule(name) && choice.sortOrder) {
      const order = choice.sortOrder(name);
      if (order) rules.push(new SortRule(name, order));
    }
  }
  // The words rule decides which documents match at all; without it in the settings it goes first.
  if (!choice.placeholder && !seen.has('words')) rules.unshift(new WordsRule(choice.matchingStrategy));
  return rules;
}
