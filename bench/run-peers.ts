// Runs each peer engine of a workload (bench/peers/<name>-peer.ts, compiled next to this file) as a
// child process on the same dataset (it regenerates it from the same seed) and the same query list,
// and measures it exactly as Skein is measured. A failing peer is recorded, never fatal.
import { fileURLToPath } from 'node:url';
import type { QueryLoadResult } from './load-generator.js';
import type { PeerLoadFigures } from './peers/peer-server.js';
import { readMemory } from './process-stats.js';
import type { BenchQuery } from './query-mix.js';
import { runSearchPhase } from './search-phase.js';
import { startSkeinServer } from './server-process.js';
import { SkeinHttpClient } from './skein-http.js';
import type { PeerName, Workload } from './workload.js';

export interface PeerResult {
  name: PeerName;
  /** What the peer reports: generation and in-process indexing time. */
  loading: PeerLoadFigures | null;
  /** Spawn to healthy (generation + indexing + start-up). */
  readySeconds: number | null;
  search: QueryLoadResult | null;
  server: {
    rssAfterLoadBytes: number | null;
    maxRssDuringSearchBytes: number | null;
    peakRssBytes: number | null;
    searchCpuPercent: number | null;
  };
  error: string | null;
}

export function peerScriptPath(name: PeerName): string {
  return fileURLToPath(new URL(`./peers/${name}-peer.js`, import.meta.url));
}

export async function runPeer(workload: Workload, name: PeerName, queries: readonly BenchQuery[], log: (line: string) => void): Promise<PeerResult> {
  const result: PeerResult = {
    name,
    loading: null,
    readySeconds: null,
    search: null,
    server: { rssAfterLoadBytes: null, maxRssDuringSearchBytes: null, peakRssBytes: null, searchCpuPercent: null },
    error: null,
  };
  log(`peer ${name}: starting (it generates and indexes ${workload.dataset.documents} documents)`);
  const started = performance.now();
  let server;
  try {
    server = await startSkeinServer({
      cliPath: peerScriptPath(name),
      startTimeoutSeconds: workload.load.taskTimeoutSeconds,
      extraArgs: ['--dataset', JSON.stringify(workload.dataset), '--settings', JSON.stringify(workload.index.settings)],
    });
  } catch (error) {
    result.error = (error as Error).message;
    return result;
  }
  try {
    result.readySeconds = Math.round(performance.now() - started) / 1000;
    const { json } = await new SkeinHttpClient(server.baseUrl).request('GET', '/bench/peer');
    result.loading = json as PeerLoadFigures;
    result.server.rssAfterLoadBytes = readMemory(server.pid)?.rssBytes ?? null;
    log(`peer ${name}: ready in ${result.readySeconds} s (indexing ${result.loading?.indexingSeconds ?? '?'} s)`);
    const phase = await runSearchPhase(workload, server, queries, name);
    result.search = phase.search;
    result.server.searchCpuPercent = phase.search.serverCpuPercent;
    result.server.maxRssDuringSearchBytes = phase.maxRssDuringSearchBytes;
    log(`peer ${name}: ${phase.search.queriesPerSecond} queries/s, p99 ${phase.search.latencyMs.p99} ms`);
  } catch (error) {
    result.error = `${(error as Error).message}\n${server.logTail()}`;
  } finally {
    result.server.peakRssBytes = readMemory(server.pid)?.peakRssBytes ?? null;
    await server.stop();
  }
  return result;
}

export async function runPeers(workload: Workload, queries: readonly BenchQuery[], log: (line: string) => void): Promise<PeerResult[]> {
  const results: PeerResult[] = [];
  for (const name of workload.peers) results.push(await runPeer(workload, name, queries, log));
  return results;
}
