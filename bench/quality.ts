// Result quality from an engine's own answers to the real-text queries (npm-queries.ts), the same for
// Skein and every peer:
// - prefix, typo, rare: "intended word in the top 20": the word the query was derived from (the completed
//   last word, the word before its typo, the rare word) is a word of some hit's name or summary;
// - word, twoWords, threeWords: "top hit holds every word": the first hit's name + summary has every query
//   word, the last one allowed as a prefix (as-you-type engines match it so).
import { textWords } from './npm-dataset.js';
import { realQueryKinds, searchPath, type RealQuery, type RealQueryKind } from './npm-queries.js';

export type QualityMetric = 'intendedInTop' | 'topHitHoldsAll';

export function metricOf(kind: RealQueryKind): QualityMetric {
  return kind === 'prefix' || kind === 'typo' || kind === 'rare' ? 'intendedInTop' : 'topHitHoldsAll';
}

function hitWords(hit: unknown): string[] {
  const document = (hit ?? {}) as Record<string, unknown>;
  return textWords(`${String(document.name ?? '')} ${String(document.summary ?? '')}`);
}

/** Whether one answer (its hits, best first) satisfies the query's metric. */
export function answerIsGood(query: RealQuery, hits: readonly unknown[]): boolean {
  if (metricOf(query.kind) === 'intendedInTop') {
    return hits.some((hit) => hitWords(hit).includes(query.intended!));
  }
  if (hits.length === 0) return false;
  const words = new Set(hitWords(hits[0]));
  const wanted = textWords(query.q);
  return wanted.every((word, i) => words.has(word) || (i === wanted.length - 1 && [...words].some((candidate) => candidate.startsWith(word))));
}

export interface KindQuality {
  metric: QualityMetric;
  queries: number;
  good: number;
  /** good / queries, 0..1. */
  share: number;
  /** Answers without hits. */
  empty: number;
}

export interface QualityFigures {
  /** Queries answered (the first of the list, in order, until the count or the time cap). */
  queries: number;
  seconds: number;
  failed: number;
  /** Up to three failed queries with their status and body. */
  failures: string[];
  byKind: Partial<Record<RealQueryKind, KindQuality>>;
}

/** Sends the first `count` queries (at most `maxSeconds`), `concurrency` at a time, and scores the answers. */
export async function measureQuality(baseUrl: string, indexUid: string, queries: readonly RealQuery[], options: { count: number; limit: number; concurrency: number; maxSeconds: number }): Promise<QualityFigures> {
  const started = performance.now();
  const deadline = started + options.maxSeconds * 1000;
  const byKind: QualityFigures['byKind'] = {};
  let next = 0;
  let answered = 0;
  let failed = 0;
  const failures: string[] = [];
  const take = Math.min(options.count, queries.length);
  const worker = async () => {
    while (next < take && performance.now() < deadline) {
      const query = queries[next++];
      let hits: unknown[] | null = null;
      try {
        const response = await fetch(baseUrl + searchPath(indexUid, query.q, options.limit), { signal: AbortSignal.timeout(Math.round(Math.max(1000, deadline - performance.now()))) });
        if (response.ok) hits = ((await response.json()) as { hits?: unknown[] }).hits ?? [];
        else if (failures.length < 3) failures.push(`${response.status} for ${JSON.stringify(query.q)}: ${(await response.text()).slice(0, 200)}`);
      } catch (error) {
        hits = null;
        if (failures.length < 3) failures.push(`${JSON.stringify(query.q)}: ${(error as Error).message}`);
      }
      if (hits === null) {
        failed++;
        continue;
      }
      answered++;
      const figures = (byKind[query.kind] ??= { metric: metricOf(query.kind), queries: 0, good: 0, share: 0, empty: 0 });
      figures.queries++;
      if (hits.length === 0) figures.empty++;
      if (answerIsGood(query, hits)) figures.good++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  for (const kind of realQueryKinds) {
    const figures = byKind[kind];
    if (figures) figures.share = Math.round((figures.good / Math.max(1, figures.queries)) * 1000) / 1000;
  }
  return { queries: answered, seconds: Math.round(performance.now() - started) / 1000, failed, failures, byKind };
}

export interface KindLatency {
  queries: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
}

export interface KindLatencyFigures {
  /** Queries answered (from the end of the list back, until the count or the time cap), one at a time. */
  queries: number;
  seconds: number;
  failed: number;
  byKind: Partial<Record<RealQueryKind, KindLatency>>;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

function latencyOf(samples: number[]): KindLatency {
  samples.sort((a, b) => a - b);
  const at = (share: number) => samples[Math.min(samples.length - 1, Math.floor(samples.length * share))];
  return { queries: samples.length, meanMs: round2(samples.reduce((sum, value) => sum + value, 0) / samples.length), p50Ms: round2(at(0.5)), p90Ms: round2(at(0.9)) };
}

/**
 * What each kind of query costs an engine: the last `count` queries of the list (the windows send the list
 * from its start, so these were never sent before), one at a time (no queueing behind other kinds), each
 * timed from the request to its parsed answer. The ceiling peer's figures are the transport's share.
 */
export async function measureKindLatency(baseUrl: string, indexUid: string, queries: readonly RealQuery[], options: { count: number; limit: number; maxSeconds: number }): Promise<KindLatencyFigures> {
  const started = performance.now();
  const deadline = started + options.maxSeconds * 1000;
  const samples = new Map<RealQueryKind, number[]>();
  let answered = 0;
  let failed = 0;
  const first = Math.max(0, queries.length - options.count);
  for (let i = queries.length - 1; i >= first && performance.now() < deadline; i--) {
    const query = queries[i];
    const sent = performance.now();
    try {
      const response = await fetch(baseUrl + searchPath(indexUid, query.q, options.limit), { signal: AbortSignal.timeout(Math.round(Math.max(1000, deadline - sent))) });
      await response.arrayBuffer();
      if (!response.ok) {
        failed++;
        continue;
      }
    } catch {
      failed++;
      continue;
    }
    const elapsed = performance.now() - sent;
    answered++;
    let list = samples.get(query.kind);
    if (!list) samples.set(query.kind, (list = []));
    list.push(elapsed);
  }
  const byKind: KindLatencyFigures['byKind'] = {};
  for (const kind of realQueryKinds) {
    const list = samples.get(kind);
    if (list && list.length > 0) byKind[kind] = latencyOf(list);
  }
  return { queries: answered, seconds: Math.round(performance.now() - started) / 1000, failed, byKind };
}
