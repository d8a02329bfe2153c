// Fires the query list at POST /indexes/{uid}/search with autocannon: `concurrency` keep-alive
// connections, a warm-up run whose figures are kept apart, then the measured runs. All connections share
// one cursor over the list, so they send different queries rather than the same sequence in lockstep.
// The warm-up lasts its seconds and, with `warmupPasses`, until every query was sent that many times:
// a fixed duration sends the whole list at 100,000 documents but a quarter of it at 1,000,000, so
// the sizes were measured in different states (warm against first visits). Its figures are those of
// the first pass, the first visits, reported as such; further passes settle, unreported.
import autocannon from 'autocannon';
import type { BenchQuery } from './query-mix.js';
import { LatencyRecorder, type LatencySummary } from './latency-stats.js';
import { median, medianByKey, medianLatency, sumByKey } from './median.js';
import { runWrk } from './wrk-load.js';

/** What sends the measured runs' requests (the warm-up is always autocannon's: it counts passes and checks answers). */
export type LoadClient = 'autocannon' | 'wrk';

export interface QueryLoadOptions {
  baseUrl: string;
  indexUid: string;
  queries: readonly BenchQuery[];
  concurrency: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** The warm-up also goes on until each query of the list was sent this many times (0 unless given)... */
  warmupPasses?: number;
  /** ...but stops after this many seconds whatever was sent (a slow engine); 60 unless given. */
  warmupMaxSeconds?: number;
  /** Measured runs after the one warm-up; each figure of the result is their median. 1 unless given. */
  runs?: number;
  /** autocannon unless given; wrk reports no latency per kind and checks no answers (wrk-load.ts). */
  client?: LoadClient;
  /** Called when a measured run starts (e.g. to read the server's CPU time). */
  onMeasureStart?: (run: number) => void;
  /** Called when a measured run ends; its return value is kept as that run's `serverCpuPercent`. */
  onMeasureEnd?: (run: number) => number | null;
  /** Called once a second during the warm-up and the measured runs (memory sampling, progress). */
  onSecond?: (phase: 'warmup' | 'measure', run: number) => void;
}

export interface ErrorSample {
  kind: string;
  status: number;
  q: string;
  body: string;
}

/** One measured run's headline figures (the result's figures are the medians of these). */
export interface RunFigures {
  queriesPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  clientCpuPercent: number;
  serverCpuPercent: number | null;
}

export interface QueryLoadResult {
  /** Measured runs; the figures below are medians over them, counts are totals. */
  runs: number;
  perRun: RunFigures[];
  requests: number;
  durationSeconds: number;
  queriesPerSecond: number;
  latencyMs: LatencySummary;
  latencyMsByKind: Record<string, LatencySummary>;
  non2xx: number;
  /** Latency of the non-2xx answers (e.g. 503 past the server's queue bound: how fast it refuses); null when none. */
  non2xxLatencyMs?: LatencySummary | null;
  /** Non-2xx answers per query kind (e.g. filtered queries before the server supports filters). */
  non2xxByKind: Record<string, number>;
  statusCodes: Record<string, number>;
  /** Connection errors, including timeouts. */
  errors: number;
  timeouts: number;
  /** Share of 2xx answers with no hits, per query kind: a sanity check of the workload and of the server
   * (e.g. typo queries that all come back empty mean typo tolerance is not working). */
  emptyHitsShareByKind: Record<string, number>;
  /** 2xx answers without a "hits" member. */
  malformedResponses: number;
  /** The first few non-2xx responses, to see what went wrong without a second run. */
  errorSamples: ErrorSample[];
  /** CPU the bench process itself used, in % of one core: near 100 means the client, not the server, limits QPS. */
  clientCpuPercent: number;
  /** Median server CPU over the runs, when onMeasureEnd reports it. */
  serverCpuPercent: number | null;
  /** The warm-up's own figures (first visits of the queries when it made whole passes); null without one. */
  warmup?: WarmupFigures | null;
}

export interface WarmupFigures {
  seconds: number;
  requests: number;
  /** Whole passes over the query list it sent (it stops once warmupPasses are sent, or at warmupMaxSeconds); null for a warm-up of seconds alone. */
  passes: number | null;
  queriesPerSecond: number;
  latencyMs: LatencySummary;
  /** Seconds of the passes after the first (whose figures these are), sent to settle and not reported; 0 without. */
  settleSeconds: number;
}

const maxErrorSamples = 5;
const drainTimeoutMs = 15_000;
const maxErrorSamplesPerKind = 2;

interface Run {
  result: autocannon.Result;
  recorder: LatencyRecorder;
  refusedRecorder: LatencyRecorder;
  errorSamples: ErrorSample[];
  answers: AnswerCounts;
  non2xxByKind: Record<string, number>;
}

const emptyHits = /"hits"\s*:\s*\[\s*\]/;

class AnswerCounts {
  readonly byKind = new Map<string, { answers: number; empty: number }>();
  malformed = 0;

  record(kind: string, body: string): void {
    if (!body.includes('"hits"')) this.malformed++;
    let counts = this.byKind.get(kind);
    if (!counts) this.byKind.set(kind, (counts = { answers: 0, empty: 0 }));
    counts.answers++;
    if (emptyHits.test(body)) counts.empty++;
  }

  emptyShares(): Record<string, number> {
    const shares: Record<string, number> = {};
    for (const [kind, { answers, empty }] of [...this.byKind].sort(([a], [b]) => a.localeCompare(b))) {
      shares[kind] = Math.round((empty / answers) * 1000) / 1000;
    }
    return shares;
  }
}

export class QueryLoadGenerator {
  private cursor = 0;
  /** Queries sent since the start (the passes over the list). */
  private sent = 0;
  private readonly bodies: Buffer[];

  constructor(private readonly options: QueryLoadOptions) {
    if (options.queries.length === 0) throw new Error('no queries to send');
    this.bodies = options.queries.map((query) => Buffer.from(query.body));
  }

  private nextQueryIndex(): number {
    const index = this.cursor;
    this.cursor = (this.cursor + 1) % this.bodies.length;
    this.sent++;
    return index;
  }

  /** `stopWhen`: checked after each answer; once it holds the run ends at autocannon's next tick (within a second). */
  private fire(durationSeconds: number, onSecond?: () => void, stopWhen?: () => boolean): Promise<Run> {
    const recorder = new LatencyRecorder();
    const refusedRecorder = new LatencyRecorder();
    const errorSamples: ErrorSample[] = [];
    const non2xxByKind: Record<string, number> = {};
    const answers = new AnswerCounts();
    const { queries } = this.options;
    // onResponse (which sees the request's context) and the instance's 'response' event (which sees the
    // latency) run back to back, synchronously, for the same response: this carries the query across.
    let respondedIndex = 0;
    return new Promise((resolve, reject) => {
      const instance = autocannon(
        {
          url: this.options.baseUrl,
          connections: this.options.concurrency,
          duration: durationSeconds,
          timeout: 30,
          requests: [
            {
              method: 'POST',
              path: `/indexes/${this.options.indexUid}/search`,
              headers: { 'content-type': 'application/json' },
              setupRequest: (request, context) => {
                const index = this.nextQueryIndex();
                context.queryIndex = index;
                request.body = this.bodies[index];
                return request;
              },
              onResponse: (status, body, context) => {
                respondedIndex = context.queryIndex as number;
                const { kind, q } = queries[respondedIndex];
                if (status >= 200 && status <= 299) {
                  answers.record(kind, body);
                  return;
                }
                non2xxByKind[kind] = (non2xxByKind[kind] ?? 0) + 1;
                // A few per kind, so one failing kind does not hide another's error.
                const ofKind = errorSamples.filter((sample) => sample.kind === kind).length;
                if (errorSamples.length < maxErrorSamples + maxErrorSamplesPerKind * 4 && ofKind < maxErrorSamplesPerKind) {
                  errorSamples.push({ kind, status, q, body: body.slice(0, 300) });
                }
              },
            },
          ],
        },
        (error, result) => {
          clearInterval(ticker);
          if (error) reject(error);
          else resolve({ result, recorder, refusedRecorder, errorSamples, answers, non2xxByKind });
        },
      );
      let stopping = false;
      instance.on('response', (_client: unknown, status: number, _bytes: number, milliseconds: number) => {
        if (status >= 200 && status <= 299) recorder.record(queries[respondedIndex].kind, milliseconds);
        else refusedRecorder.record(String(status), milliseconds);
        if (stopWhen !== undefined && !stopping && stopWhen()) {
          stopping = true;
          instance.stop();
        }
      });
      const ticker = setInterval(() => onSecond?.(), 1000);
    });
  }

  private async measure(run: number): Promise<QueryLoadResult> {
    if (this.options.client === 'wrk') return this.measureWithWrk(run);
    this.options.onMeasureStart?.(run);
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    const onSecond = this.options.onSecond;
    const { result, recorder, refusedRecorder, errorSamples, answers, non2xxByKind } = await this.fire(this.options.durationSeconds, onSecond && (() => onSecond('measure', run)));
    const cpu = process.cpuUsage(cpuBefore);
    const wallMs = performance.now() - wallBefore;
    const serverCpuPercent = this.options.onMeasureEnd?.(run) ?? null;
    const requests = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
    const latencyMs = recorder.overall();
    const queriesPerSecond = Math.round((result['2xx'] / result.duration) * 10) / 10;
    const clientCpuPercent = Math.round(((cpu.user + cpu.system) / 1000 / wallMs) * 100);
    return {
      runs: 1,
      perRun: [{ queriesPerSecond, p50: latencyMs.p50, p99: latencyMs.p99, non2xx: result.non2xx, clientCpuPercent, serverCpuPercent }],
      requests,
      durationSeconds: result.duration,
      queriesPerSecond,
      latencyMs,
      latencyMsByKind: recorder.perKind(),
      non2xx: result.non2xx,
      non2xxLatencyMs: result.non2xx > 0 ? refusedRecorder.overall() : null,
      non2xxByKind,
      statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, Number(count)])),
      errors: result.errors,
      timeouts: result.timeouts,
      emptyHitsShareByKind: answers.emptyShares(),
      malformedResponses: answers.malformed,
      errorSamples,
      clientCpuPercent,
      serverCpuPercent,
    };
  }

  private async measureWithWrk(run: number): Promise<QueryLoadResult> {
    const { onSecond, onMeasureStart, onMeasureEnd, baseUrl, indexUid, concurrency, durationSeconds } = this.options;
    onMeasureStart?.(run);
    const ticker = setInterval(() => onSecond?.('measure', run), 1000);
    let figures;
    try {
      figures = await runWrk({ baseUrl, indexUid, bodies: this.options.queries.map((query) => query.body), concurrency, durationSeconds });
    } finally {
      clearInterval(ticker);
    }
    const serverCpuPercent = onMeasureEnd?.(run) ?? null;
    const { requests, non2xx, errors, timeouts, queriesPerSecond, latencyMs, clientCpuPercent } = figures;
    return {
      runs: 1,
      perRun: [{ queriesPerSecond, p50: latencyMs.p50, p99: latencyMs.p99, non2xx, clientCpuPercent, serverCpuPercent }],
      requests,
      durationSeconds: figures.durationSeconds,
      queriesPerSecond,
      latencyMs,
      latencyMsByKind: {},
      non2xx,
      // wrk's percentiles cover every answer, refusals included.
      non2xxLatencyMs: null,
      non2xxByKind: {},
      statusCodes: { '2xx-3xx': requests - non2xx, '4xx-5xx': non2xx },
      errors,
      timeouts,
      emptyHitsShareByKind: {},
      malformedResponses: 0,
      errorSamples: [],
      clientCpuPercent,
      serverCpuPercent,
    };
  }

  /**
   * autocannon abandons the requests in flight when a run ends, but a slow engine still works through
   * them: without this, the next run would start behind that backlog. One more search, answered after
   * the backlog, waits it out (up to drainTimeoutMs: an engine slower than that is measured behind
   * the rest of its backlog, which the runs then show).
   */
  private async drain(): Promise<void> {
    try {
      await fetch(`${this.options.baseUrl}/indexes/${this.options.indexUid}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: this.options.queries[0].body,
        signal: AbortSignal.timeout(drainTimeoutMs),
      });
    } catch {
      // A server that cannot answer within the timeout is measured as it is.
    }
  }

  private async warmUp(): Promise<WarmupFigures | null> {
    const { warmupSeconds, warmupPasses = 0, warmupMaxSeconds = 60, onSecond } = this.options;
    if (warmupSeconds === 0 && warmupPasses === 0) return null;
    const firstPass = this.bodies.length;
    const started = performance.now();
    const minimumMs = warmupSeconds * 1000;
    const sentBefore = this.sent;
    const { result, recorder } = await this.fire(
      warmupPasses === 0 ? warmupSeconds : Math.max(warmupSeconds, warmupMaxSeconds),
      onSecond && (() => onSecond('warmup', 0)),
      warmupPasses === 0 ? undefined : () => this.sent - sentBefore >= firstPass && performance.now() - started >= minimumMs,
    );
    const seconds = (performance.now() - started) / 1000;
    await this.drain();
    const settleSeconds = await this.settle(warmupPasses * this.bodies.length - (this.sent - sentBefore), warmupMaxSeconds - seconds);
    return {
      seconds: Math.round(seconds * 10) / 10,
      requests: result['2xx'] + result.non2xx,
      passes: warmupPasses === 0 ? null : Math.floor((this.sent - sentBefore) / this.bodies.length),
      queriesPerSecond: Math.round((result['2xx'] / seconds) * 10) / 10,
      latencyMs: recorder.overall(),
      settleSeconds,
    };
  }

  /**
   * The warm-up's passes after the first, unreported: what warms on repeats (caches that admit an
   * entry on its second visit, lazily built tables) settles before the measured runs. Measured at
   * 100k and 64 connections, the three 6 s runs after one pass rose 5,917 -> 7,071 -> 7,668 q/s.
   * Returns its seconds (0 when nothing was left to send or no time was left).
   */
  private async settle(requestsLeft: number, secondsLeft: number): Promise<number> {
    if (requestsLeft <= 0 || secondsLeft <= 0) return 0;
    const started = performance.now();
    const target = this.sent + requestsLeft;
    await this.fire(secondsLeft, this.options.onSecond && (() => this.options.onSecond!('warmup', 0)), () => this.sent >= target);
    await this.drain();
    return Math.round((performance.now() - started) / 100) / 10;
  }

  async run(): Promise<QueryLoadResult> {
    const warmup = await this.warmUp();
    const results: QueryLoadResult[] = [];
    for (let run = 0; run < (this.options.runs ?? 1); run++) {
      results.push(await this.measure(run));
      if (run + 1 < (this.options.runs ?? 1)) await this.drain();
    }
    return { ...combineRuns(results), warmup };
  }
}

/** The median of each figure over the runs; counts summed; the first runs' error samples. */
export function combineRuns(results: readonly QueryLoadResult[]): QueryLoadResult {
  if (results.length === 1) return results[0];
  const serverCpu = results.map((result) => result.serverCpuPercent).filter((value): value is number => value !== null);
  return {
    runs: results.length,
    perRun: results.flatMap((result) => result.perRun),
    requests: results.reduce((sum, result) => sum + result.requests, 0),
    durationSeconds: results.reduce((sum, result) => sum + result.durationSeconds, 0),
    queriesPerSecond: median(results.map((result) => result.queriesPerSecond)),
    latencyMs: medianLatency(results.map((result) => result.latencyMs)),
    latencyMsByKind: medianByKey(results.map((result) => result.latencyMsByKind), medianLatency),
    non2xx: results.reduce((sum, result) => sum + result.non2xx, 0),
    non2xxLatencyMs: medianOfPresent(results.map((result) => result.non2xxLatencyMs ?? null)),
    non2xxByKind: sumByKey(results.map((result) => result.non2xxByKind)),
    statusCodes: sumByKey(results.map((result) => result.statusCodes)),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    timeouts: results.reduce((sum, result) => sum + result.timeouts, 0),
    emptyHitsShareByKind: medianByKey(results.map((result) => result.emptyHitsShareByKind), median),
    malformedResponses: results.reduce((sum, result) => sum + result.malformedResponses, 0),
    errorSamples: results.flatMap((result) => result.errorSamples).slice(0, maxErrorSamples + maxErrorSamplesPerKind * 4),
    clientCpuPercent: median(results.map((result) => result.clientCpuPercent)),
    serverCpuPercent: serverCpu.length > 0 ? median(serverCpu) : null,
  };
}

function medianOfPresent(latencies: readonly (LatencySummary | null)[]): LatencySummary | null {
  const present = latencies.filter((latency): latency is LatencySummary => latency !== null);
  return present.length > 0 ? medianLatency(present) : null;
}

export function runQueryLoad(options: QueryLoadOptions): Promise<QueryLoadResult> {
  return new QueryLoadGenerator(options).run();
}
