#!/usr/bin/env node
// What the shard worker's long answer gaps are made of (issue 19, the latency tail). Reads the
// timeline a worker writes with SKEIN_STALL_TRACE=DIR (src/shard/stall-trace.ts) and, per phase of a
// mixed-probe run (bench/mixed-probe.ts --out PROBE.json; without it: the whole trace as one phase),
// prints: query batches and their service times, the collector's pauses by kind, write commands and
// background slices (their own time: the searches answered inside them left out), and the gaps between
// consecutive answers posted to the front — at 64 connections every connection waits on this one
// thread, so a gap over 25 ms is a stall every waiting search pays. Each long gap is painted by what
// ran in it (gc > background > search > write, the innermost wins; 'idle': in no span, the worker waiting
// for batches or posting answers) and counted under its largest part.
//   node bench/stall-attribution.mjs DIR/worker-0.ndjson [PROBE.json] [--gap 25] [--list 10]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = args[at + 1];
  args.splice(at, 2);
  return Number(value);
};
const gapMs = option('--gap', 25);
const listCount = option('--list', 10);
const [tracePath, probePath] = args;
if (!tracePath) throw new Error('usage: node bench/stall-attribution.mjs TRACE.ndjson [PROBE.json] [--gap 25] [--list 10]');
const events = readFileSync(tracePath, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const phases = probePath
  ? JSON.parse(readFileSync(probePath, 'utf8')).phases.map((phase, k, all) => ({ name: `${phase.name}${all.filter((p) => p.name === phase.name).length > 1 ? ` ${all.slice(0, k + 1).filter((p) => p.name === phase.name).length}` : ''}`, s: phase.startUs, e: phase.endUs, load: phase.load }))
  : [{ name: 'all', s: Math.min(...events.map((e) => e.s)), e: Math.max(...events.map((e) => e.e ?? e.s)) }];

const GC_KIND = { 1: 'gc-scavenge', 4: 'gc-mark-compact', 8: 'gc-incremental', 16: 'gc-weak-callbacks' }; // perf_hooks.constants.NODE_PERFORMANCE_GC_*
const PAINT = [['command', 'write'], ['batch', 'search'], ['nested', 'search'], ['background', 'background'], ['gc', null]];
const CATEGORIES = ['search', 'write', 'background', 'gc-scavenge', 'gc-mark-compact', 'gc-incremental', 'gc-weak-callbacks', 'idle'];
const STEP = 10; // µs per painted cell

/** The gap [a, b) painted by the spans overlapping it: µs per category. */
function paint(a, b, spans) {
  const cells = new Int8Array(Math.ceil((b - a) / STEP)).fill(CATEGORIES.indexOf('idle'));
  for (const [kind, category] of PAINT) {
    for (const span of spans) {
      if (span.k !== kind || span.e <= a || span.s >= b) continue;
      const c = CATEGORIES.indexOf(category ?? GC_KIND[span.d] ?? 'gc-scavenge');
      const from = Math.max(0, Math.floor((span.s - a) / STEP));
      const to = Math.min(cells.length, Math.ceil((span.e - a) / STEP));
      cells.fill(c, from, to);
    }
  }
  const out = Object.fromEntries(CATEGORIES.map((c) => [c, 0]));
  for (const c of cells) out[CATEGORIES[c]] += STEP;
  return out;
}

const pct = (sorted, p) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]);
const ms = (us) => Math.round(us / 100) / 10;
for (const phase of phases) {
  const inside = events.filter((e) => e.s >= phase.s && e.s < phase.e);
  const spans = events.filter((e) => e.e !== undefined && e.e > phase.s && e.s < phase.e);
  const batches = inside.filter((e) => e.k === 'batch');
  const searches = batches.reduce((sum, e) => sum + e.d, 0) + inside.filter((e) => e.k === 'nested').reduce((sum, e) => sum + e.d, 0);
  const service = batches.map((e) => e.e - e.s).sort((x, y) => x - y);
  const gcs = inside.filter((e) => e.k === 'gc');
  const gcBy = {};
  for (const e of gcs) {
    const kind = GC_KIND[e.d] ?? `gc-${e.d}`;
    gcBy[kind] ??= { n: 0, ms: 0, max: 0 };
    gcBy[kind].n++;
    gcBy[kind].ms += (e.e - e.s) / 1000;
    gcBy[kind].max = Math.max(gcBy[kind].max, (e.e - e.s) / 1000);
  }
  const whole = paint(phase.s, phase.e, spans);
  const posts = inside.filter((e) => e.k === 'post').map((e) => e.s);
  const gaps = [];
  for (let k = 1; k < posts.length; k++) if (posts[k] - posts[k - 1] > gapMs * 1000) gaps.push({ a: posts[k - 1], b: posts[k] });
  const byCause = {};
  const listed = [];
  for (const gap of gaps) {
    const parts = paint(gap.a, gap.b, spans);
    const [cause] = Object.entries(parts).sort((x, y) => y[1] - x[1])[0];
    byCause[cause] ??= { n: 0, ms: 0 };
    byCause[cause].n++;
    byCause[cause].ms += (gap.b - gap.a) / 1000;
    listed.push({ at: ((gap.a - phase.s) / 1e6).toFixed(2), ms: ms(gap.b - gap.a), ...Object.fromEntries(Object.entries(parts).filter(([, v]) => v >= 1000).map(([k, v]) => [k, ms(v)])) });
  }
  const allGaps = posts.slice(1).map((t, k) => t - posts[k]).sort((x, y) => x - y);
  const seconds = (phase.e - phase.s) / 1e6;
  console.log(`== ${phase.name} (${seconds.toFixed(1)} s${phase.load !== undefined ? `, load ${phase.load}` : ''})`);
  console.log(`  batches ${batches.length}, searches ${searches}; batch service p50 ${ms(pct(service, 0.5))} p99 ${ms(pct(service, 0.99))} max ${ms(pct(service, 1))} ms`);
  console.log(`  busy by part (ms): ${CATEGORIES.map((c) => `${c} ${Math.round(whole[c] / 1000)}`).join(', ')}; search µs per search ${searches ? Math.round(whole.search / searches) : 0}`);
  console.log(`  gc: ${Object.entries(gcBy).map(([k, v]) => `${k} ${v.n}× ${Math.round(v.ms)} ms (max ${Math.round(v.max)})`).join(', ') || 'none'}`);
  const heaps = inside.filter((e) => e.k === 'heap');
  if (heaps.length > 0) console.log(`  live bitmaps ${heaps.map((e) => Math.round(e.d[0] / 1000)).join(' ')} k; heap used ${heaps.map((e) => Math.round(e.d[1] / 2 ** 20)).join(' ')} MiB (about once a second)`);
  console.log(`  answer gaps: ${allGaps.length}, p50 ${ms(pct(allGaps, 0.5))} p99 ${ms(pct(allGaps, 0.99))} max ${ms(pct(allGaps, 1))} ms; over ${gapMs} ms: ${gaps.length}, ${Math.round(gaps.reduce((s, g) => s + g.b - g.a, 0) / 1000)} ms in all`);
  console.log(`  long gaps by largest part: ${Object.entries(byCause).sort((x, y) => y[1].ms - x[1].ms).map(([k, v]) => `${k} ${v.n} (${Math.round(v.ms)} ms)`).join(', ') || 'none'}`);
  for (const gap of listed.sort((x, y) => y.ms - x.ms).slice(0, listCount)) console.log(`    ${JSON.stringify(gap)}`);
  const slow = inside.filter((e) => e.k === 'search').sort((x, y) => parseFloat(y.d) - parseFloat(x.d));
  if (slow.length > 0) console.log(`  searches of 10 ms or more (own time): ${slow.length}; longest: ${slow.slice(0, listCount).map((e) => JSON.stringify(e.d)).join(', ')}`);
}
