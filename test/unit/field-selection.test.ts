// The linear field selection (projection.ts) and pattern sets (attribute-patterns.ts) against their
// plain definitions (every selector / pattern tried one by one), on seeded random names and documents.
import test from 'ava';
import { selectsField } from '../../src/documents/flatten.js';
import { FieldSelection, projectDocument } from '../../src/documents/projection.js';
import { matchesPattern, PatternSet } from '../../src/filter/attribute-patterns.js';

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SEGMENTS = ['a', 'b', 'ab', 'c', 'a.b', 'x'];

function randomName(next: () => number): string {
  const parts = Array.from({ length: 1 + Math.floor(next() * 3) }, () => SEGMENTS[Math.floor(next() * SEGMENTS.length)]!);
  return parts.join('.');
}

function randomDocument(next: () => number, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keys = 1 + Math.floor(next() * 4);
  for (let k = 0; k < keys; k++) {
    const key = SEGMENTS[Math.floor(next() * SEGMENTS.length)]!;
    out[key] = depth < 2 && next() < 0.5 ? randomDocument(next, depth + 1) : Math.floor(next() * 10);
  }
  return out;
}

/** The definition: a key kept when a selector selects it, else its object projected on the selectors under it. */
function plainProjection(document: Record<string, unknown>, selectors: readonly string[]): Record<string, unknown> {
  if (selectors.includes('*')) return document;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(document)) {
    if (selectors.some((selector) => selectsField(selector, key))) {
      out[key] = value;
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const nested = selectors.filter((selector) => selector.startsWith(`${key}.`)).map((selector) => selector.slice(key.length + 1));
      if (nested.length > 0) {
        const child = plainProjection(value as Record<string, unknown>, nested);
        if (Object.keys(child).length > 0) out[key] = child;
      }
    }
  }
  return out;
}

test('FieldSelection selects what some selector selects, and projects as the plain definition', (t) => {
  const next = random(18);
  for (let round = 0; round < 2000; round++) {
    const selectors = Array.from({ length: Math.floor(next() * 5) }, () => (next() < 0.05 ? '*' : randomName(next)));
    const selection = new FieldSelection(selectors);
    const field = randomName(next);
    t.is(selection.selects(field), selectors.some((selector) => selectsField(selector, field)), `${JSON.stringify(selectors)} ${field}`);
    const document = randomDocument(next);
    t.deepEqual(projectDocument(document, selection), plainProjection(document, selectors), JSON.stringify({ selectors, document }));
  }
});

test('PatternSet matches what some pattern matches: names, *, pre*, *suf, *mid* and others', (t) => {
  const next = random(7);
  const stars = ['*', 'a*', '*b', '*a*', 'a*b', 'a.*', '*.b', 'x*x*', '**'];
  for (let round = 0; round < 3000; round++) {
    const patterns = Array.from({ length: Math.floor(next() * 5) }, () => (next() < 0.4 ? stars[Math.floor(next() * stars.length)]! : randomName(next)));
    const field = randomName(next);
    t.is(new PatternSet(patterns).matches(field), patterns.some((pattern) => matchesPattern(pattern, field)), `${JSON.stringify(patterns)} ${field}`);
  }
});

test('65,536 selectors over a document of 600 fields: linear, not selectors x fields', (t) => {
  const selectors = Array.from({ length: 65_536 }, (_, i) => `f${i}.v`);
  const document: Record<string, unknown> = {};
  for (let k = 0; k < 300; k++) document[`f${k}`] = { v: k, w: `w${k}` };
  const started = performance.now();
  const selection = new FieldSelection(selectors);
  for (let round = 0; round < 20; round++) projectDocument(document, selection);
  const elapsed = performance.now() - started;
  t.deepEqual(projectDocument(document, selection)['f7'], { v: 7 });
  // The pairwise version took ~9 s for this; generous for a loaded machine.
  t.true(elapsed < 3000, `${elapsed.toFixed(0)} ms`);
});
