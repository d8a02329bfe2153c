// Made-up documents for the write-path warm-ups of a fresh server's threads (the shard worker's,
// src/shard/warm-up.ts; the payload decoder's, src/front/threads/warm-up.ts): rows of a package
// registry, the shape of the real-text bench's, seeded so every start writes the same ones.

const SYLLABLES = ['re', 'act', 'vue', 'no', 'de', 'ts', 'web', 'pack', 'lo', 'dash', 'ex', 'press', 'con', 'fig', 'ser', 'ver',
  'mi', 'cro', 'ui', 'kit', 'plug', 'in', 'data', 'base', 'js', 'on', 'log', 'ger', 'test', 'run'];
const NON_ASCII = ['café', 'über', 'naïve', 'résumé', '组件', 'ツール', 'библиотека', 'ñandú'];

/**
 * The warm-up's documents as a package registry's rows: a hyphenated name, a one-line summary of 2-14
 * words (some not ASCII: the tokenizer's other path), a version and a count; seeded, the same each start.
 * In batches of `batchSize`, made when asked: the 16,000 rows at once took ~60 ms of one turn.
 */
export function* warmUpDocumentBatches(count: number, batchSize: number): Generator<Record<string, unknown>[], void, unknown> {
  let seed = 0x2545f491;
  const next = (): number => {
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
    return (seed >>> 0) / 0x1_0000_0000;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const word = (): string => {
    if (next() < 0.03) return pick(NON_ASCII);
    let text = '';
    for (let k = 1 + Math.floor(next() * 3); k > 0; k--) text += pick(SYLLABLES);
    return text;
  };
  let out: Record<string, unknown>[] = [];
  for (let id = 0; id < count; id++) {
    const name = next() < 0.4 ? `${word()}-${word()}` : next() < 0.2 ? `@${word()}/${word()}` : word();
    const summary = Array.from({ length: 2 + Math.floor(next() * 13) }, word).join(' ');
    out.push({ id, name, summary: next() < 0.05 ? '' : summary, version: `${Math.floor(next() * 5)}.${id % 10}.${id % 7}`, downloads: Math.floor(next() * 10_000) });
    if (out.length === batchSize) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}

/** The warm-up's first `count` documents at once (tests). */
export function writeWarmUpDocuments(count: number): Record<string, unknown>[] {
  return [...warmUpDocumentBatches(count, count)].flat();
}
