// A search hit's JSON with its formatting members (spec 4.2.4 rules 10-12): the retrieved document,
// then `_formatted` (highlighted / cropped; numbers become strings), `_matchesPosition` (UTF-8 byte
// offsets) and `_rankingScore`, in Meilisearch's key order.
import type { ShardSearchOptions } from '../protocol/messages.js';
import { JsonNumberText } from '../documents/exact-json.js';
import { ownValue, setOwn } from '../documents/own-fields.js';
import { FieldSelection, projectDocument } from '../documents/projection.js';
import { formatText, matchPositions, type MatchPosition, type TagBudget, type TextFormat } from './highlight.js';
import type { WordMatcher } from './query-matcher.js';
import { rankingScore } from './ranking-score.js';
import type { ScoreFields } from './score-fields.js';
import { wordsOfText } from './text-words.js';

export const DEFAULT_CROP_LENGTH = 10;
export const DEFAULT_CROP_MARKER = '…';
export const DEFAULT_PRE_TAG = '<em>';
export const DEFAULT_POST_TAG = '</em>';

/** The formatting fields of a search query as the front forwards them in ShardQueryMessage.options. */
export type FormattingOptions = Pick<ShardSearchOptions, 'attributesToHighlight' | 'attributesToCrop' | 'cropLength' | 'cropMarker'
  | 'highlightPreTag' | 'highlightPostTag' | 'showMatchesPosition' | 'showRankingScore' | 'showRankingScoreDetails'>;

export interface HitToFormat {
  /** The stored document. */
  stored: Record<string, unknown>;
  /** Effective attributesToRetrieve (already ∩ displayedAttributes); null = all. */
  attributesToRetrieve: readonly string[] | null;
  displayedAttributes: readonly string[];
  score: readonly number[];
  /** Meilisearch's score and details (score-fields.ts); without it `_rankingScore` is the stand-in of ranking-score.ts. */
  scoreFields?: ScoreFields;
  /** Fields added after retrieval (`_geoDistance`): they follow the document, before `_formatted`. */
  extraFields?: Record<string, unknown>;
}

interface CropSelector {
  name: string;
  length: number | null;
}

/** `attr:N` sets that attribute's crop length. */
export function parseCropSelectors(list: readonly string[]): CropSelector[] {
  return list.map((entry) => {
    const match = /^(.*):(\d+)$/.exec(entry);
    return match ? { name: match[1]!, length: Number(match[2]) } : { name: entry, length: null };
  });
}

export function needsFormatting(options: FormattingOptions): boolean {
  return (options.attributesToHighlight?.length ?? 0) > 0 || (options.attributesToCrop?.length ?? 0) > 0
    || options.showMatchesPosition === true || options.showRankingScore === true || options.showRankingScoreDetails === true;
}

/** `tagBudget`: the search's budget of highlight tag characters, shared by its hits (highlight.ts). */
export function formatHit(hit: HitToFormat, options: FormattingOptions, matcher: WordMatcher, tagBudget?: TagBudget): Record<string, unknown> {
  const retrieved = projectDocument(hit.stored, hit.attributesToRetrieve);
  const out: Record<string, unknown> = { ...retrieved, ...hit.extraFields };
  const highlight = options.attributesToHighlight ?? [];
  const crop = parseCropSelectors(options.attributesToCrop ?? []);
  if (selectsDisplayed([...highlight, ...crop.map((selector) => selector.name)], hit.displayedAttributes)) {
    const displayedSelection = new FieldSelection(hit.displayedAttributes);
    const displayed = projectDocument(hit.stored, displayedSelection);
    // Named attributes join the retrieved ones; "*" selects every displayed attribute (Meilisearch's
    // compute_formatted_options: the displayed fields, then the retrieved ones unformatted).
    const named = [...highlight, ...crop.map((selector) => selector.name)];
    const base = hit.attributesToRetrieve === null || named.includes('*') ? displayed
      : projectDocument(displayed, [...hit.attributesToRetrieve, ...named]);
    const defaults = {
      highlight: { preTag: options.highlightPreTag ?? DEFAULT_PRE_TAG, postTag: options.highlightPostTag ?? DEFAULT_POST_TAG, ...(tagBudget ? { budget: tagBudget } : {}) },
      cropLength: options.cropLength ?? DEFAULT_CROP_LENGTH,
      cropMarker: options.cropMarker ?? DEFAULT_CROP_MARKER,
    };
    // Linear in the path's length: its dotted prefixes are looked up, never every selector.
    const highlighted = new FieldSelection(highlight);
    const firstCrop = new Map<string, number>();
    crop.forEach((selector, k) => { if (selector.name !== '*' && !firstCrop.has(selector.name)) firstCrop.set(selector.name, k); });
    const starCrop = crop.find((selector) => selector.name === '*');
    const cropOf = (path: string): CropSelector | undefined => {
      let best = firstCrop.get(path) ?? -1;
      for (let dot = path.indexOf('.'); dot >= 0; dot = path.indexOf('.', dot + 1)) {
        const k = firstCrop.get(path.slice(0, dot));
        if (k !== undefined && (best < 0 || k < best)) best = k;
      }
      return best >= 0 ? crop[best] : starCrop;
    };
    const formatOf = (path: string): TextFormat => {
      const cropSelector = cropOf(path);
      return {
        highlight: highlighted.selects(path) ? defaults.highlight : null,
        crop: cropSelector ? { length: cropSelector.length ?? defaults.cropLength, marker: defaults.cropMarker } : null,
      };
    };
    out._formatted = formatObject(base, '', formatOf, matcher);
  }
  if (options.showMatchesPosition === true) {
    const positions: Record<string, MatchPosition[]> = {};
    const displayed = projectDocument(hit.stored, hit.displayedAttributes);
    for (const [key, value] of Object.entries(displayed)) collectPositions(value, key, [], matcher, positions);
    out._matchesPosition = positions;
  }
  if (options.showRankingScore === true) out._rankingScore = hit.scoreFields?.rankingScore ?? rankingScore(hit.score);
  if (options.showRankingScoreDetails === true && hit.scoreFields?.rankingScoreDetails) out._rankingScoreDetails = hit.scoreFields.rankingScoreDetails;
  if (hit.scoreFields?.rankingScoreValues) out._rankingScoreValues = hit.scoreFields.rankingScoreValues;
  return out;
}

/** search-semantics §10: `_formatted` appears only when the lists name at least one displayed attribute. */
function selectsDisplayed(names: readonly string[], displayed: readonly string[]): boolean {
  if (names.length === 0) return false;
  if (names.includes('*') || displayed.includes('*')) return true;
  const shown = new FieldSelection(displayed);
  const named = new FieldSelection(names);
  return names.some((name) => shown.selects(name)) || displayed.some((field) => named.selects(field));
}

function formatObject(object: Record<string, unknown>, parent: string, formatOf: (path: string) => TextFormat,
  matcher: WordMatcher): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) setOwn(out, key, formatValue(value, parent === '' ? key : `${parent}.${key}`, formatOf, matcher));
  return out;
}

function formatValue(value: unknown, path: string, formatOf: (path: string) => TextFormat, matcher: WordMatcher): unknown {
  // A number kept as written (exact-json.ts) is formatted from its literal.
  if (typeof value === 'string' || typeof value === 'number' || value instanceof JsonNumberText) {
    const text = String(value);
    const format = formatOf(path);
    if (!format.highlight && !format.crop) return text;
    return formatText(text, wordsOfText(text, matcher), format);
  }
  if (Array.isArray(value)) return value.map((element) => formatValue(element, path, formatOf, matcher));
  if (value !== null && typeof value === 'object') return formatObject(value as Record<string, unknown>, path, formatOf, matcher);
  return value;
}

function collectPositions(value: unknown, path: string, indices: number[], matcher: WordMatcher,
  out: Record<string, MatchPosition[]>): void {
  if (typeof value === 'string' || typeof value === 'number' || value instanceof JsonNumberText) {
    const text = String(value);
    const found = matchPositions(text, wordsOfText(text, matcher), indices);
    if (found.length > 0) {
      const list = ownValue(out, path);
      if (list === undefined) setOwn(out, path, found);
      else list.push(...found);
    }
  } else if (Array.isArray(value)) {
    value.forEach((element, index) => collectPositions(element, path, [...indices, index], matcher, out));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) collectPositions(child, `${path}.${key}`, indices, matcher, out);
  }
}
