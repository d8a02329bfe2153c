// A monotone stand-in for `_rankingScore` from a score array alone, used only when formatHit gets no
// Meilisearch score (score-fields.ts; searches always pass one, from src/ranking/scores/score-details.ts): every rule contributes 1 / (1 + score), so a
// hit that is best on every rule (or a placeholder search, no rules) scores 1 and any worse rule
// value lowers the score. Later rules weigh less, so the first rules dominate as in a bucket sort.
import { TIMED_OUT_SCORE } from '../ranking/ranking-rule.js';

export function rankingScore(scores: readonly number[]): number {
  let result = 1;
  let weight = 1;
  for (const score of scores) {
    const local = score >= TIMED_OUT_SCORE ? 0 : 1 / (1 + Math.max(0, score));
    // Mixes the rule's value in with a weight that halves at each rule: 1 - weight * (1 - local).
    result *= 1 - weight * (1 - local);
    weight /= 2;
  }
  return result;
}
