export type { RankingRule, Bucket } from './ranking-rule.js';
export { TIMED_OUT_SCORE } from './ranking-rule.js';
export type { SearchContext, ActiveTerms } from './search-context.js';
export { packOccurrence, occurrenceField, occurrencePosition, occurrenceTypos, occurrenceRank, occurrenceIsExact, type DocMatchProfile } from './match-profile.js';
export { bucketSort, compareRankedHits, type RankedHit } from './bucket-sort.js';
export { rulesFor, type RuleChoice } from './rules/rules-from-settings.js';
export { termRemovalSteps, docsMatchingAll } from './rules/words.js';
