// A second, independent client beside a load: one search at a time, every 20 ms, from its own
// process, with its latency by status. autocannon measures from an event loop that is itself busy
// with every connection (1,500 in the overload workload), so its figures for fast answers such as
// 503 refusals include its own queueing; this probe's do not.
//   node dist/bench/latency-probe.js URL [seconds=10] [body='{"q":"glofre socyrim","limit":20}']
// e.g. while `npm run bench -- overload` runs: URL = http://127.0.0.1:PORT/indexes/bench/search
import { performance } from 'node:perf_hooks';
import { summarizeLatencies } from './latency-stats.js';

const url = process.argv[2];
if (!url) throw new Error('usage: node dist/bench/latency-probe.js URL [seconds] [body]');
const seconds = Number(process.argv[3] ?? 10);
const body = process.argv[4] ?? '{"q":"glofre socyrim","limit":20}';
const pauseMs = 20;

const byStatus = new Map<string, number[]>();
const end = Date.now() + seconds * 1000;
while (Date.now() < end) {
  const began = performance.now();
  let status: string;
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await response.arrayBuffer();
    status = String(response.status);
  } catch {
    status = 'error';
  }
  const samples = byStatus.get(status) ?? [];
  samples.push(performance.now() - began);
  byStatus.set(status, samples);
  await new Promise((resolve) => setTimeout(resolve, pauseMs));
}
for (const [status, samples] of byStatus) {
  const { p50, p90, p99, max, count } = summarizeLatencies(samples);
  console.log(`${status}: n=${count} p50 ${p50} | p90 ${p90} | p99 ${p99} | max ${max} ms`);
}
