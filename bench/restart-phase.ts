// The restart phase (issue 5: "a server holding 1,000,000 documents answers searches within 5 s of
// start"): after the search phase, note the answer to one query, stop Skein, start a new process on the
// same database directory and time, from its spawn, (1) GET /health answering 200 and (2) that query
// answering 200 with the same estimatedTotalHits as before the stop. Comparing hit counts means a
// server that listens before its index is loaded does not count as answering.
import { readMemory } from './process-stats.js';
import type { BenchQuery } from './query-mix.js';
import { startSkeinServer, type ServerHandle } from './server-process.js';
import { SkeinHttpClient } from './skein-http.js';

export interface RestartReference {
  kind: string;
  q: string;
  /** The search body, as sent in the search phase. */
  body: string;
  /** estimatedTotalHits answered before the stop: the restarted server must answer the same. */
  estimatedTotalHits: number;
}

export interface RestartFigures {
  /** Spawn to GET /health 200, seconds. */
  healthySeconds: number | null;
  /** Spawn to the reference query answering 200 with the reference hit count, seconds. */
  firstSearchSeconds: number | null;
  /** VmRSS of the new server when that search first answered. */
  rssBytes: number | null;
  /** For contrast: the first server's spawn to /health 200 on an empty database (process and thread start-up alone). */
  emptyStartHealthySeconds: number | null;
  reference: RestartReference | null;
  /** Why a figure is missing (start failed, timeout, ...): recorded, never thrown. */
  error: string | null;
}

export interface RestartOptions {
  cliPath: string;
  /** The stopped server's directory: its `db` is reopened. */
  directory: string;
  indexUid: string;
  keepFiles: boolean;
  extraArgs?: string[];
  timeoutSeconds?: number;
  pollMs?: number;
}

const referenceCandidates = 20;

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

function estimatedTotalHits(json: unknown): number | null {
  const value = (json as { estimatedTotalHits?: unknown } | null)?.estimatedTotalHits;
  return typeof value === 'number' ? value : null;
}

export function secondsBetween(fromMs: number, toMs: number): number {
  return Math.round((toMs - fromMs) / 10) / 100;
}

/**
 * The workload's first query that has hits (of the first few; else the first query), with its answer
 * from the running server. A query with no hits would also "match" on an index not loaded yet.
 */
export async function takeRestartReference(baseUrl: string, indexUid: string, queries: readonly BenchQuery[]): Promise<RestartReference> {
  const client = new SkeinHttpClient(baseUrl);
  let first: RestartReference | null = null;
  for (const query of queries.slice(0, referenceCandidates)) {
    const { status, json, text } = await client.request('POST', `/indexes/${indexUid}/search`, query.body);
    const hits = estimatedTotalHits(json);
    if (status !== 200 || hits === null) throw new Error(`reference search ${query.body} -> HTTP ${status}: ${text.slice(0, 200)}`);
    const reference = { kind: query.kind, q: query.q, body: query.body, estimatedTotalHits: hits };
    if (hits > 0) return reference;
    first ??= reference;
  }
  if (!first) throw new Error('no query to search after the restart');
  return first;
}

/** Polls the reference search every pollMs until it answers as before; returns the answer time and RSS. */
async function waitForReferenceAnswer(server: ServerHandle, indexUid: string, reference: RestartReference, deadlineMs: number, pollMs: number): Promise<{ atMs: number; rssBytes: number | null }> {
  const client = new SkeinHttpClient(server.baseUrl);
  let lastAnswer = 'no answer';
  for (;;) {
    try {
      const { status, json, text } = await client.request('POST', `/indexes/${indexUid}/search`, reference.body);
      const atMs = performance.now();
      const hits = estimatedTotalHits(json);
      if (status === 200 && hits === reference.estimatedTotalHits) return { atMs, rssBytes: readMemory(server.pid)?.rssBytes ?? null };
      lastAnswer = status === 200 ? `estimatedTotalHits ${hits}` : `HTTP ${status}: ${text.slice(0, 200)}`;
    } catch (error) {
      lastAnswer = (error as Error).message;
    }
    if (performance.now() > deadlineMs) {
      throw new Error(`restart: no search answered with ${reference.estimatedTotalHits} hits (as before the stop) within the timeout; last answer: ${lastAnswer}`);
    }
    await sleep(pollMs);
  }
}

/** Starts a server on `directory`, measures it, stops it (removing the directory unless keepFiles). */
export async function measureRestart(options: RestartOptions, reference: RestartReference): Promise<RestartFigures> {
  const timeoutSeconds = options.timeoutSeconds ?? 600;
  const pollMs = options.pollMs ?? 50;
  const figures: RestartFigures = { healthySeconds: null, firstSearchSeconds: null, rssBytes: null, emptyStartHealthySeconds: null, reference, error: null };
  let server: ServerHandle | null = null;
  try {
    server = await startSkeinServer({
      cliPath: options.cliPath,
      directory: options.directory,
      keepFiles: options.keepFiles,
      extraArgs: options.extraArgs,
      startTimeoutSeconds: timeoutSeconds,
      healthPollMs: pollMs,
    });
    figures.healthySeconds = secondsBetween(server.spawnedAtMs, server.healthyAtMs);
    const answer = await waitForReferenceAnswer(server, options.indexUid, reference, server.spawnedAtMs + timeoutSeconds * 1000, pollMs);
    figures.firstSearchSeconds = secondsBetween(server.spawnedAtMs, answer.atMs);
    figures.rssBytes = answer.rssBytes;
  } catch (error) {
    figures.error = (error as Error).message;
    if (server) figures.error += `\nlast server log lines:\n${server.logTail()}`;
  } finally {
    // startSkeinServer stops (and cleans up) a server that never became healthy by itself.
    await server?.stop();
  }
  return figures;
}
