// attribute (legacy, before v1.36): attributeRank, then wordPosition, as one rule.
import { attributeRankScore } from './attribute-rank.js';
import { PerDocumentRule } from './per-document-rule.js';
import { orderedPart } from '../scores/score-layers.js';
import { mapPacked } from '../packed-arrays.js';
import { attributeRankParts } from './attribute-rank-parts.js';
import { MAX_POSITION_COST, wordPositionScore } from './word-position.js';
import { MAX_QUERY_TERMS } from '../../query/parse-query.js';

const POSITION_SPAN = MAX_POSITION_COST * MAX_QUERY_TERMS + 1;

export function attributeRule(): PerDocumentRule {
  return new PerDocumentRule('attribute', (ctx, profile, terms) =>
    attributeRankScore(ctx, profile, terms) * POSITION_SPAN + wordPositionScore(ctx, profile, terms),
  // The position part stays below POSITION_SPAN, so attributeRank's parts keep their strict order.
  () => null, (ctx, universe, terms) => {
    const parts = attributeRankParts(ctx, universe, terms);
    return parts === null ? null : mapPacked([...parts], (part) => orderedPart(part.docs, null));
  });
}
