// Fires the query list at POST /indexes/{uid}/search with autocannon: `concurrency` keep-alive
// connections, a warm-up run whose figures are dropped, then the measured run. All connections share
// one cursor over the list, so they send different queries rather than the same sequence in lockstep.
import autocannon from 'autocannon';
import type { BenchQuery } from './query-mix.js';
import { LatencyRecorder, type LatencySummary } from './latency-stats.js';

export interface QueryLoadOptions {
  baseUrl: string;
  indexUid: string;
  queries: readonly BenchQuery[];
  concurrency: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Called when the measured run starts, after the warm-up (e.g. to read the server's CPU time). */
  onMeasureStart?: () => void;
  /** Called once a second during the measured run (e.g. to sample the server's memory). */
  onSecond?: () => void;
}

export interface ErrorSample {
  status: number;
  q: string;
  body: string;
}

export interface QueryLoadResult {
  requests: number;
  durationSeconds: number;
  queriesPerSecond: number;
  latencyMs: LatencySummary;
  latencyMsByKind: Record<string, LatencySummary>;
  non2xx: number;
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
}

const maxErrorSamples = 5;

interface Run {
  result: autocannon.Result;
  recorder: LatencyRecorder;
  errorSamples: ErrorSample[];
  answers: AnswerCounts;
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
  private readonly bodies: Buffer[];

  constructor(private readonly options: QueryLoadOptions) {
    if (options.queries.length === 0) throw new Error('no queries to send');
    this.bodies = options.queries.map((query) => Buffer.from(query.body));
  }

  private nextQueryIndex(): number {
    const index = this.cursor;
    this.cursor = (this.cursor + 1) % this.bodies.length;
    return index;
  }

  private fire(durationSeconds: number, onSecond?: () => void): Promise<Run> {
    const recorder = new LatencyRecorder();
    const errorSamples: ErrorSample[] = [];
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
                if (status >= 200 && status <= 299) answers.record(queries[respondedIndex].kind, body);
                else if (errorSamples.length < maxErrorSamples) {
                  errorSamples.push({ status, q: queries[respondedIndex].q, body: body.slice(0, 300) });
                }
              },
            },
          ],
        },
        (error, result) => {
          clearInterval(ticker);
          if (error) reject(error);
          else resolve({ result, recorder, errorSamples, answers });
        },
      );
      instance.on('response', (_client: unknown, status: number, _bytes: number, milliseconds: number) => {
        if (status >= 200 && status <= 299) recorder.record(queries[respondedIndex].kind, milliseconds);
      });
      const ticker = setInterval(() => onSecond?.(), 1000);
    });
  }

  async run(): Promise<QueryLoadResult> {
    if (this.options.warmupSeconds > 0) await this.fire(this.options.warmupSeconds);
    this.options.onMeasureStart?.();
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    const { result, recorder, errorSamples, answers } = await this.fire(this.options.durationSeconds, this.options.onSecond);
    const cpu = process.cpuUsage(cpuBefore);
    const wallMs = performance.now() - wallBefore;
    const requests = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
    return {
      requests,
      durationSeconds: result.duration,
      queriesPerSecond: Math.round((result['2xx'] / result.duration) * 10) / 10,
      latencyMs: recorder.overall(),
      latencyMsByKind: recorder.perKind(),
      non2xx: result.non2xx,
      statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, Number(count)])),
      errors: result.errors,
      timeouts: result.timeouts,
      emptyHitsShareByKind: answers.emptyShares(),
      malformedResponses: answers.malformed,
      errorSamples,
      clientCpuPercent: Math.round(((cpu.user + cpu.system) / 1000 / wallMs) * 100),
    };
  }
}

export function runQueryLoad(options: QueryLoadOptions): Promise<QueryLoadResult> {
  return new QueryLoadGenerator(options).run();
}
