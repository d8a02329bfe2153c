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
  return new HitFormatter(options, matcher, hit.displayedAttributes, tagBudget).format(hit);
}

/**
 * formatHit for the hits of one search: what depends on its options and the index's displayed
 * attributes alone (selections, crop selectors, each path's format) is worked out once, not per hit
 * (~2 µs a hit of instant-meilisearch's searches). Owner: one search's hit shaping (shard worker);
 * its memo of formats holds one entry per attribute path met in the hits.
 */
export class HitFormatter {
  private readonly highlight: readonly string[];
  private readonly crop: CropSelector[];
  /** `_formatted` is made (selectsDisplayed). */
  private readonly formats: boolean;
  private readonly named: readonly string[];
  private readonly namesStar: boolean;
  private readonly displayedSelection: FieldSelection;
  private readonly highlighted: FieldSelection;
  private readonly firstCrop = new Map<string, number>();
  private readonly starCrop: CropSelector | undefined;
  private readonly defaults: { highlight: NonNullable<TextFormat['highlight']>; cropLength: number; cropMarker: string };
  private readonly formatByPath = new Map<string, TextFormat>();

  constructor(private readonly options: FormattingOptions, private readonly matcher: WordMatcher,
    private readonly displayedAttributes: readonly string[], tagBudget?: TagBudget) {
    this.highlight = options.attributesToHighlight ?? [];
    this.crop = parseCropSelectors(options.attributesToCrop ?? []);
    // Named attributes join the retrieved ones; "*" selects every displayed attribute (Meilisearch's
    // compute_formatted_options: the displayed fields, then the retrieved ones unformatted).
    this.named = [...this.highlight, ...this.crop.map((selector) => selector.name)];
    this.namesStar = this.named.includes('*');
    this.formats = selectsDisplayed(this.named, displayedAttributes);
    this.displayedSelection = new FieldSelection(displayedAttributes);
    this.highlighted = new FieldSelection(this.highlight);
    this.crop.forEach((selector, k) => { if (selector.name !== '*' && !this.firstCrop.has(selector.name)) this.firstCrop.set(selector.name, k); });
    this.starCrop = this.crop.find((selector) => selector.name === '*');
    this.defaults = {
      highlight: { preTag: options.highlightPreTag ?? DEFAULT_PRE_TAG, postTag: options.highlightPostTag ?? DEFAULT_POST_TAG, ...(tagBudget ? { budget: tagBudget } : {}) },
      cropLength: options.cropLength ?? DEFAULT_CROP_LENGTH,
      cropMarker: options.cropMarker ?? DEFAULT_CROP_MARKER,
    };
  }

  format(hit: HitToFormat): Record<string, unknown> {
    const options = this.options;
    const matcher = this.matcher;
    const retrieved = projectDocument(hit.stored, hit.attributesToRetrieve);
    const out: Record<string, unknown> = { ...retrieved, ...hit.extraFields };
    if (this.formats) {
      const displayed = projectDocument(hit.stored, this.displayedSelection);
      const base = hit.attributesToRetrieve === null || this.namesStar ? displayed
        : projectDocument(displayed, [...hit.attributesToRetrieve, ...this.named]);
      out._formatted = formatObject(base, '', this.formatOf, matcher);
    }
    if (options.showMatchesPosition === true) {
      const positions: Record<string, MatchPosition[]> = {};
      const displayed = projectDocument(hit.stored, this.displayedAttributes);
      for (const [key, value] of Object.entries(displayed)) collectPositions(value, key, [], matcher, positions);
      out._matchesPosition = positions;
    }
    if (options.showRankingScore === true) out._rankingScore = hit.scoreFields?.rankingScore ?? rankingScore(hit.score);
    if (options.showRankingScoreDetails === true && hit.scoreFields?.rankingScoreDetails) out._rankingScoreDetails = hit.scoreFields.rankingScoreDetails;
    if (hit.scoreFields?.rankingScoreValues) out._rankingScoreValues = hit.scoreFields.rankingScoreValues;
    return out;
  }

  /** The crop selector of a path: the first one naming it or a dotted prefix of it (linear in the path's length), else `*`'s. */
  private cropOf(path: string): CropSelector | undefined {
    let best = this.firstCrop.get(path) ?? -1;
    for (let dot = path.indexOf('.'); dot >= 0; dot = path.indexOf('.', dot + 1)) {
      const k = this.firstCrop.get(path.slice(0, dot));
      if (k !== undefined && (best < 0 || k < best)) best = k;
    }
    return best >= 0 ? this.crop[best] : this.starCrop;
  }

  private readonly formatOf = (path: string): TextFormat => {
    let format = this.formatByPath.get(path);
    if (format === undefined) {
      const cropSelector = this.cropOf(path);
      format = {
        highlight: this.highlighted.selects(path) ? this.defaults.highlight : null,
        crop: cropSelector ? { length: cropSelector.length ?? this.defaults.cropLength, marker: this.defaults.cropMarker } : null,
      };
      this.formatByPath.set(path, format);
    }
    return format;
  };
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
