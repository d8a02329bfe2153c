// `_rankingScore` and `_rankingScoreDetails` of one hit (Meilisearch's), from the search's ScorePlan
// (src/ranking/scores/score-details.ts) and the hit's score array; sort details read the stored document.
import { parseSortCriterion } from '../filter/sort-criteria.js';
import { haversineMeters } from '../filter/geo-distance.js';
import { detailsJson, globalScoreOf, type ScorePlan, type ScoreValue } from '../ranking/scores/score-details.js';

export interface ScoreFields {
  rankingScore: number;
  rankingScoreDetails?: Record<string, unknown>;
  /** Federated search with a sort: Meilisearch's score values (ScorePlan.values). */
  rankingScoreValues?: ScoreValue[];
}

export function scoreFieldsOf(plan: ScorePlan | null, score: readonly number[], stored: Record<string, unknown>, withDetails: boolean,
  withValues = false): ScoreFields {
  if (plan === null) return { rankingScore: 1, ...(withDetails ? { rankingScoreDetails: {} } : {}), ...(withValues ? { rankingScoreValues: [] } : {}) };
  const details = plan.details(score);
  const rankingScore = globalScoreOf(details);
  const values = withValues ? { rankingScoreValues: plan.values(score) } : {};
  if (!withDetails) return { rankingScore, ...values };
  return { rankingScore, rankingScoreDetails: detailsJson(details, (criterion) => sortDetail(criterion, stored)), ...values };
}

function sortDetail(criterion: string, stored: Record<string, unknown>): [string, Record<string, unknown>] {
  let parsed;
  try {
    parsed = parseSortCriterion(criterion);
  } catch {
    return [criterion, { value: null }];
  }
  if (parsed.point) {
    const { lat, lng } = parsed.point;
    const key = `_geoPoint(${lat}, ${lng}):${parsed.direction}`;
    const point = geoOf(stored['_geo']);
    if (point === null) return [key, { value: null, distance: null }];
    return [key, { value: point, distance: haversineMeters(lat, lng, point.lat, point.lng) }];
  }
  const field = parsed.field ?? '';
  return [`${field}:${parsed.direction}`, { value: valueAt(stored, field) ?? null }];
}

function geoOf(geo: unknown): { lat: number; lng: number } | null {
  if (geo === null || typeof geo !== 'object') return null;
  const lat = Number((geo as Record<string, unknown>)['lat']);
  const lng = Number((geo as Record<string, unknown>)['lng']);
  return Number.isFinite(lat) && Number.isFinite(lng) ? { lat, lng } : null;
}

/** The value at a dotted path (keys with dots in them too, as flattening reads them). */
function valueAt(document: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(document, path)) return document[path];
  for (let dot = path.indexOf('.'); dot > 0; dot = path.indexOf('.', dot + 1)) {
    const head = document[path.slice(0, dot)];
    if (head !== null && typeof head === 'object' && !Array.isArray(head)) {
      const found = valueAt(head as Record<string, unknown>, path.slice(dot + 1));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
