// Result shaping of search hits (highlight, crop, match positions, ranking score): pure functions the
// shard workers run where the hit documents are serialized.
export { buildMatcher, type MatcherOptions, type WordMatcher, type WordMatch } from './query-matcher.js';
export { formatHit, HitFormatter, needsFormatting, type FormattingOptions, type HitToFormat } from './format-hit.js';
export { rankingScore } from './ranking-score.js';
