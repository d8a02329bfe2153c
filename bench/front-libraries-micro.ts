// Micro-benchmark behind DECISIONS.md "Router, Content-Type and Accept-Encoding: libraries or ours":
// the per-request cost of the front's route match, Content-Type check and Accept-Encoding
// negotiation, hand-written (bench/hand-written-*.ts, what src/front had; mimeEssence) against
// find-my-way, content-type and negotiator, on the inputs a search request brings.
// Run: `npx tsc -p tsconfig.json && node dist/bench/front-libraries-micro.js [rounds]`.
import contentType from 'content-type';
import { HandWrittenRouter } from './hand-written-router.js';
import { mimeEssence } from '../src/front/http/request-body.js';
import { EncodingNegotiation, negotiateEncoding } from '../src/front/http/response-compression.js';
import { handWrittenNegotiateEncoding } from './hand-written-negotiation.js';
import { Router } from '../src/front/http/router.js';
import { allRoutes } from '../src/front/routes.js';
import type { RouteSpec } from '../src/front/http/route-spec.js';

const ROUNDS = Number(process.argv[2] ?? 5);
const ITERATIONS = 500_000;

function nsPerCall(body: (i: number) => unknown): number {
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) if (body(i)) sink++;
  const ns = Number(process.hrtime.bigint() - started) / ITERATIONS;
  if (sink < 0) console.log(sink);
  return ns;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const ours = new HandWrittenRouter<RouteSpec>();
const library = new Router<RouteSpec>();
for (const route of allRoutes()) {
  ours.add(route.method, route.path, route);
  library.add(route.method, route.path, route);
}

const SEARCH_PATHS = ['/indexes/movies/search', '/indexes/books/search', '/indexes/movies_2024/search'];
const MIXED_PATHS: Array<[string, string]> = [
  ['POST', '/indexes/movies/search'], ['GET', '/indexes/movies/documents/42'], ['GET', '/tasks/12'],
  ['POST', '/multi-search'], ['GET', '/health'], ['PATCH', '/indexes/movies/settings'], ['GET', '/nope/x'], ['DELETE', '/keys'],
];
const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8'];
const ACCEPT_ENCODINGS = ['gzip, deflate, br', 'br;q=1.0, gzip;q=0.8, *;q=0.1'];
const remembered = new EncodingNegotiation();

const cases: Record<string, () => number> = {
  'route: ours, search path': () => nsPerCall((i) => ours.lookup('POST', SEARCH_PATHS[i % 3]!).kind === 'found'),
  'route: find-my-way, search path': () => nsPerCall((i) => library.lookup('POST', SEARCH_PATHS[i % 3]!).kind === 'found'),
  'route: ours, mixed paths': () => nsPerCall((i) => { const [m, p] = MIXED_PATHS[i % MIXED_PATHS.length]!; return ours.lookup(m, p).kind === 'found'; }),
  'route: find-my-way, mixed paths': () => nsPerCall((i) => { const [m, p] = MIXED_PATHS[i % MIXED_PATHS.length]!; return library.lookup(m, p).kind === 'found'; }),
  'content-type: ours (essence)': () => nsPerCall((i) => mimeEssence(CONTENT_TYPES[i & 1]!) === 'application/json'),
  'content-type: content-type.parse': () => nsPerCall((i) => contentType.parse(CONTENT_TYPES[i & 1]!).type === 'application/json'),
  'accept-encoding: ours': () => nsPerCall((i) => handWrittenNegotiateEncoding(ACCEPT_ENCODINGS[i & 1]!) !== null),
  'accept-encoding: negotiator': () => nsPerCall((i) => negotiateEncoding(ACCEPT_ENCODINGS[i & 1]!) !== null),
  'accept-encoding: negotiator, remembered': () => nsPerCall((i) => remembered.negotiate(ACCEPT_ENCODINGS[i & 1]!) !== null),
};

const results = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(cases)) {
    const list = results.get(name) ?? [];
    list.push(run());
    results.set(name, list);
  }
}
console.log(`median ns per call over ${ROUNDS} rounds of ${ITERATIONS.toLocaleString('en')} calls (rounds interleaved)`);
for (const [name, values] of results) console.log(`${name.padEnd(36)} ${median(values).toFixed(0).padStart(6)} ns   (min ${Math.min(...values).toFixed(0)}, max ${Math.max(...values).toFixed(0)})`);
