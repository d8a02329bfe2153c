// The ranking rules of one search, in settings.rankingRules order. Term rules are skipped for a
// placeholder search; rules that would do nothing for this query are left out, so they add no entry
// to the hit scores (scores of all hits of one query still line up: same rules, same order).
import type { MatchingStrategyName } from '../protocol/messages.js';
import { attributeRankRule } from './attribute-rank.js';
import { attributeRule } from './attribute.js';
import { parseCustomFieldRule } from './custom-field.js';
import { exactnessRule } from './exactness.js';
import { proximityRule } from './proximity.js';
import type { RankingRule } from './ranking-rule.js';
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
 * Rules of earlier searches of this thread, by settings' rankingRules (the array: a settings change
 * makes a new one), then placeholder + matching strategy. Only term rules: they keep no state from one
 * search to the next (start resets them, end drops what they held), and a thread's searches run one
 * at a time. Making the six rules (and their closures) per query showed in profiles and its garbage.
 */
const reusedRules = new WeakMap<readonly string[], Map<string, readonly RankingRule[]> | null>();
/**
 * Reused rules a search holds now (from reusableRulesFor to releaseRules). A search answered at
 * another's yield point (worker.ts NestedBatches) runs in the middle of it: it gets rules of its own,
 * or it would restart the other's words rule mid-bucket (the other then answered 0 hits).
 */
const rulesInUse = new WeakSet<readonly RankingRule[]>();

/**
 * rulesFor, the same rules again for the next search with the same choice when they are term rules
 * only (no sort criteria, no custom field rules: those depend on the query or the shard's orders).
 * The rules of one search are not handed to another while it runs (releaseRules at its end: a search
 * nested at a yield point gets new ones); the array is read-only.
 */
export function reusableRulesFor(choice: RuleChoice): readonly RankingRule[] {
  if (choice.sort !== null && choice.sort.length > 0) return rulesFor(choice);
  let byChoice = reusedRules.get(choice.rankingRules);
  if (byChoice === undefined) {
    byChoice = choice.rankingRules.every((name) => Object.hasOwn(TERM_RULES, name) || name === 'sort') ? new Map() : null;
    reusedRules.set(choice.rankingRules, byChoice);
  }
  if (byChoice === null) return rulesFor(choice);
  const key = `${choice.placeholder ? 'p' : 'q'}${choice.matchingStrategy}`;
  let rules = byChoice.get(key);
  if (rules === undefined) byChoice.set(key, (rules = rulesFor(choice)));
  else if (rulesInUse.has(rules)) return rulesFor(choice);
  rulesInUse.add(rules);
  return rules;
}

/** The search that got `rules` from reusableRulesFor has ended (in a finally): the next may reuse them. */
export function releaseRules(rules: readonly RankingRule[]): void {
  rulesInUse.delete(rules);
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
