// `node dist/test/fuzz/fuzz-replay.js --seed N --from A --to B [--categories ...]`: replays requests A..B of
// a fuzz seed one at a time against a fresh server, and after each checks that /health and a probe search
// still answer; stops at the first request that breaks the server (or answers badly) and prints it.
import { parseArgs } from 'node:util';
import { startTestServer } from '../http/harness.js';
import { categoriesFromEnv, checkResponse, describeRequest, prepareFuzzIndexes, probeAnswers, requestAt } from './fuzz-runner.js';

const { values } = parseArgs({ options: { seed: { type: 'string' }, from: { type: 'string', default: '0' }, to: { type: 'string' }, categories: { type: 'string', default: '' }, all: { type: 'boolean', default: false }, slow: { type: 'string', default: '2000' } } });
const seed = Number(values.seed);
const server = await startTestServer({});
const { context, probes } = await prepareFuzzIndexes(server.client, categoriesFromEnv(values.categories));
let status = 0;
for (let index = Number(values.from); index <= Number(values.to); index++) {
  const request = requestAt(seed, index, context);
  let problem: string | null;
  let text = '';
  const sent = Date.now();
  try {
    const response = await fetch(server.client.baseUrl + request.path, { method: request.method, headers: { ...request.headers, ...(request.body ? { 'content-type': request.contentType ?? 'application/json' } : {}) }, body: request.body as unknown as BodyInit | undefined, signal: AbortSignal.timeout(15_000) });
    text = await response.text();
    problem = checkResponse({ status: response.status, text, contentType: response.headers.get('content-type') ?? '' }, request.expect);
  } catch (cause) {
    problem = `request failed: ${(cause as Error).message}`;
  }
  const tookMs = Date.now() - sent;
  if (tookMs > Number(values.slow)) process.stdout.write(`#${index}: slow, ${tookMs} ms: ${describeRequest(request, 300)}\n`);
  if (problem === null) {
    const after = await probeAnswers(server.client).catch((cause: Error) => cause.message);
    if (typeof after === 'string' || JSON.stringify(after) !== JSON.stringify(probes)) problem = `the probes answer differently after it: ${String(after).slice(0, 300)}`;
  }
  if (problem !== null) {
    process.stdout.write(`#${index}: ${problem}\n  ${describeRequest(request, 4000)}\n  -> ${text.slice(0, 1000)}\n`);
    status = 1;
    if (!values.all) break;
  }
}
await server.close().catch(() => {});
process.exit(status);
