// The highlighter's speed-ups held to the plain definitions on random input: distances over UTF-16
// units (UnitDistances) against the code-point arrays' (editDistance, prefixEditDistance); the matcher
// against matchOne as first written (code-point arrays, no length bounds); the ASCII scan of
// wordsOfText against segment + normalizeWord; one HitFormatter for a search's hits against a new
// formatHit per hit.
import test from 'ava';
import { defaultClassifier, type CharClassifier } from '../../src/analysis/separators.js';
import { buildMatcher, formatHit, HitFormatter, type FormattingOptions, type WordMatch, type WordMatcher } from '../../src/formatting/index.js';
import { editDistance, prefixEditDistance, UnitDistances } from '../../src/formatting/edit-distance.js';
import { charCount, queryWordsOf } from '../../src/formatting/query-matcher.js';
import { wordsOfText } from '../../src/formatting/text-words.js';
import { formatText, type TextFormat } from '../../src/formatting/highlight.js';
import { normalizeSynonyms } from '../../src/query/synonyms.js';
import { typoPolicyOf } from '../../src/query/typo-budget.js';
import { defaultSettings } from '../../src/settings/index-settings.js';

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
const wordOf = (next: () => number, alphabet: string, max: number) => Array.from({ length: Math.floor(next() * (max + 1)) }, () => pick(next, [...alphabet])).join('');

test('UnitDistances: editDistance and prefixEditDistance of the code-point arrays, for any lengths', (t) => {
  const next = random(1);
  const distances = new UnitDistances();
  for (let k = 0; k < 20_000; k++) {
    const a = wordOf(next, 'abcé', 1 + Math.floor(next() * 14));
    const b = next() < 0.3 ? a.slice(0, Math.floor(next() * a.length)) + wordOf(next, 'abcé', 3) : wordOf(next, 'abcé', 1 + Math.floor(next() * 14));
    if (distances.distance(a, b) !== editDistance([...a], [...b])) return t.fail(`distance ${a} ${b}`);
    const prefix = distances.prefixDistance(a, b);
    const expected = prefixEditDistance([...a], [...b]);
    if (prefix.distance !== expected.distance || prefix.length !== expected.length) return t.fail(`prefix ${a} ${b}`);
  }
  t.pass();
});

const policy = typoPolicyOf(defaultSettings().typoTolerance);
const options = { typoPolicy: policy, prefixSearch: true, synonyms: normalizeSynonyms({ car: ['automobile'] }) };

/** The matcher as first written: every query word compared through the code-point arrays. */
function referenceMatcher(q: string): (word: string) => WordMatch | null {
  const words = queryWordsOf(q, options);
  const exact = new Map<string, number>();
  for (const { word, term } of words) if (!exact.has(word)) exact.set(word, term);
  return (candidate) => {
    let best: WordMatch | null = null;
    const term = exact.get(candidate);
    if (term !== undefined) best = { term, length: charCount(candidate) };
    for (const query of words.filter((word) => word.isPrefix || word.budget > 0)) {
      if (best && best.length >= charCount(candidate)) break;
      const target = [...candidate];
      const word = [...query.word];
      const allowed = target[0] === word[0] ? query.budget : query.budget >= 2 ? 1 : -1;
      if (allowed < 0) continue;
      let match: WordMatch | null = null;
      if (query.isPrefix) {
        const { distance, length } = prefixEditDistance(word, target);
        if (distance <= allowed) match = { term: query.term, length };
      } else if (allowed > 0 && editDistance(word, target) <= allowed) match = { term: query.term, length: target.length };
      if (match && (!best || match.length > best.length)) best = match;
    }
    return best;
  };
}

test('the matcher answers as the code-point reference, with and without surrogates', (t) => {
  const next = random(2);
  for (let round = 0; round < 300; round++) {
    const alphabet = round % 5 === 0 ? 'ab😀c' : 'abcde';
    const q = Array.from({ length: 1 + Math.floor(next() * 3) }, () => wordOf(next, alphabet, 11)).join(' ') + (next() < 0.5 ? ' ' : '');
    const matcher = buildMatcher(q, options);
    const reference = referenceMatcher(q);
    for (let k = 0; k < 60; k++) {
      const words = q.trim().split(' ');
      const last = words[words.length - 1]!;
      const r = next();
      // Random words; a query word and more; the last one cut short by up to 3 (at a prefix's bound).
      const candidate = r < 0.4 ? wordOf(next, alphabet, 13) : r < 0.7 ? words[0]! + wordOf(next, alphabet, 3) : last.slice(0, Math.max(1, last.length - 1 - Math.floor(next() * 3)));
      if (candidate === '') continue;
      t.deepEqual(matcher(candidate), reference(candidate), `${JSON.stringify(q)} / ${JSON.stringify(candidate)}`);
    }
  }
});

test('wordsOfText: the ASCII scan gives what segmenting and normalizing word by word gives', (t) => {
  const next = random(3);
  const pieces = ['React', 'react', 'hooks', 'HOOK', 'comp0nent', 'x', '42', ' ', '  ', '-', '/', '. ', ', ', '(', ')', '\n', '_', 'é', 'Ü'];
  for (let round = 0; round < 400; round++) {
    const q = pick(next, ['react hook', 'reac', 'hoks', 'component', 'x 42', 'rea hooks', 'aaaa']);
    const general: WordMatcher = buildMatcher(q, options);
    // Not the default classifier object (same classes): wordsOfText takes the general path.
    const sameClasses: CharClassifier = (code, char) => defaultClassifier(code, char);
    const generalPath: WordMatcher = Object.assign((word: string) => general(word), { classify: sameClasses });
    let text = Array.from({ length: Math.floor(next() * 25) }, () => pick(next, next() < 0.97 || round % 4 !== 0 ? pieces.slice(0, -2) : pieces)).join('');
    if (next() < 0.05) text += 'a'.repeat(251 + Math.floor(next() * 3));
    t.deepEqual(wordsOfText(text, buildMatcher(q, options)), wordsOfText(text, generalPath), JSON.stringify(text));
  }
  // Words at the indexable length's bound (250 bytes), matched by a prefix.
  const general = buildMatcher('aaaa', options);
  const generalPath: WordMatcher = Object.assign((word: string) => general(word), { classify: ((code, char) => defaultClassifier(code, char)) as CharClassifier });
  for (let length = 248; length <= 253; length++) {
    const text = `x ${'a'.repeat(length)} aaaab`;
    t.deepEqual(wordsOfText(text, buildMatcher('aaaa', options)), wordsOfText(text, generalPath), `a word of ${length}`);
  }
});

test('one HitFormatter for a search\'s hits formats each as formatHit alone does', (t) => {
  const next = random(4);
  const texts = ['React hooks for forms', 'Tiny react-ish thing. Another sentence here, with words', 'hook', '', 'Component library (React)'];
  const displayedAttributes = ['*'];
  const optionSets: FormattingOptions[] = [
    { attributesToHighlight: ['*'], highlightPreTag: '<a>', highlightPostTag: '</a>' },
    { attributesToHighlight: ['name'], attributesToCrop: ['summary:3', 'meta.note'], cropLength: 2, showMatchesPosition: true },
    { attributesToCrop: ['*'], cropMarker: '~', attributesToHighlight: ['meta'] },
  ];
  for (const formatting of optionSets) {
    const matcher = buildMatcher('react hook', options);
    const formatter = new HitFormatter(formatting, matcher, displayedAttributes);
    for (let k = 0; k < 50; k++) {
      const stored = { id: k, name: pick(next, texts), summary: pick(next, texts), meta: { note: pick(next, texts), tags: [pick(next, texts), k] } };
      const attributesToRetrieve = next() < 0.5 ? null : ['id', 'name'];
      const hit = { stored, attributesToRetrieve, displayedAttributes, score: [1] };
      const formatted = formatter.format(hit);
      t.deepEqual(formatted, formatHit(hit, formatting, buildMatcher('react hook', options)));
      // Each text as its own path's format makes it (the formats are kept by path across hits).
      if (attributesToRetrieve === null && formatted._formatted !== undefined) {
        const expected = (value: unknown, path: string): unknown => {
          if (Array.isArray(value)) return value.map((element) => expected(element, path));
          if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, expected(child, `${path}.${key}`)]));
          const text = String(value);
          const format = formatOfPath(formatting, path);
          return format.highlight === null && format.crop === null ? text : formatText(text, wordsOfText(text, matcher), format);
        };
        t.deepEqual(formatted._formatted, Object.fromEntries(Object.entries(stored).map(([key, value]) => [key, expected(value, key)])));
      }
    }
  }
});

/** A path's format from the options, as search-semantics §10 says: named (or a dotted prefix named) or `*`; the first crop selector naming it, else `*`'s. */
function formatOfPath(formatting: FormattingOptions, path: string): TextFormat {
  const prefixes = path.split('.').map((_, k, parts) => parts.slice(0, k + 1).join('.'));
  const highlight = formatting.attributesToHighlight ?? [];
  const crops = (formatting.attributesToCrop ?? []).map((entry) => /^(.*):(\d+)$/.exec(entry) ?? [entry, entry, undefined]);
  const named = crops.find(([, name]) => prefixes.includes(name!)) ?? crops.find(([, name]) => name === '*');
  return {
    highlight: highlight.includes('*') || prefixes.some((prefix) => highlight.includes(prefix))
      ? { preTag: formatting.highlightPreTag ?? '<em>', postTag: formatting.highlightPostTag ?? '</em>' } : null,
    crop: named === undefined ? null : { length: named[2] === undefined ? formatting.cropLength ?? 10 : Number(named[2]), marker: formatting.cropMarker ?? '…' },
  };
}
