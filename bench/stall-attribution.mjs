#!/usr/bin/env node
// What the shard worker's long answer gaps are made of (issue 19, the latency tail). Reads the
// timeline a worker writes with SKEIN_STALL_TRACE=DIR (src/shard/stall-trace.ts) and, per phase of a
// mixed-probe run (bench/mixed-probe.ts --out PROBE.json; without it: the whole trace as one phase),
// prints: query batches and their service times, the collector's pauses by kind, write commands and
// background slices (their own time: the searches answered inside them left out), and the gaps between
// consecutive answers posted to the front — at 64 connections every connection waits on this one
// thread, so a gap over 25 ms is a stall every waiting search pays. Each long gap is painted by what
// ran in it (gc > background > search > write, the innermost wins; 'idle': in no span, the worker waiting
// for batches or posting answers) and counted under its largest part. Where the trace has the worker
// thread's scheduler counters (schedstat, on each answer), each long gap also splits into its time on a
// core, runnable but waiting for one (the machine's other threads: the front, the collector's helpers,
// the load generator, other processes) and asleep, and the front's thread's time on and waiting for a
// core in it (a gap the worker sleeps through with the front neither is the front waiting for requests).
//   node bench/stall-attribution.mjs DIR/worker-0.ndjson [PROBE.json] [--gap 25] [--list 10] [--from S] [--to S]
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
// Without a probe file: only the trace's seconds [from, to) after its first event (e.g. one steady window).
const fromSeconds = option('--from', 0);
const toSeconds = option('--to', Infinity);
const listCount = option('--list', 10);
const [tracePath, probePath] = args;
if (!tracePath) throw new Error('usage: node bench/stall-attribution.mjs TRACE.ndjson [PROBE.json] [--gap 25] [--list 10] [--from S] [--to S]');
const events = readFileSync(tracePath, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const phases = probePath
  ? JSON.parse(readFileSync(probePath, 'utf8')).phases.map((phase, k, all) => ({ name: `${phase.name}${all.filter((p) => p.name === phase.name).length > 1 ? ` ${all.slice(0, k + 1).filter((p) => p.name === phase.name).length}` : ''}`, s: phase.startUs, e: phase.endUs, load: phase.load }))
  : [wholeTrace()];

/** The trace as one phase, cut to --from / --to. */
function wholeTrace() {
  const first = events.reduce((min, e) => Math.min(min, e.s), Infinity);
  const last = events.reduce((max, e) => Math.max(max, e.e ?? e.s), -Infinity);
  const s = first + fromSeconds * 1e6;
  const e = Math.min(last, first + toSeconds * 1e6);
  return { name: fromSeconds > 0 || toSeconds < Infinity ? `seconds ${fromSeconds}-${toSeconds}` : 'all', s, e };
}

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
  const postEvents = inside.filter((e) => e.k === 'post');
  const posts = postEvents.map((e) => e.s);
  const gaps = [];
  for (let k = 1; k < posts.length; k++) if (posts[k] - posts[k - 1] > gapMs * 1000) gaps.push({ a: posts[k - 1], b: posts[k], q0: postEvents[k - 1].q, q1: postEvents[k].q, f0: postEvents[k - 1].f, f1: postEvents[k].f });
  const scheduled = { n: 0, gapUs: 0, runUs: 0, waitUs: 0, asleepUs: 0, frontRunUs: 0, frontWaitUs: 0 };
  const byCause = {};
  const listed = [];
  for (const gap of gaps) {
    const parts = paint(gap.a, gap.b, spans);
    const [cause] = Object.entries(parts).sort((x, y) => y[1] - x[1])[0];
    byCause[cause] ??= { n: 0, ms: 0 };
    byCause[cause].n++;
    byCause[cause].ms += (gap.b - gap.a) / 1000;
    // The worker thread's own scheduler counters across the gap (trace lines since schedstat was recorded).
    const sched = {};
    if (gap.q0 && gap.q1) {
      const runUs = (gap.q1[0] - gap.q0[0]) / 1000;
      const waitUs = (gap.q1[1] - gap.q0[1]) / 1000;
      const asleepUs = Math.max(0, gap.b - gap.a - runUs - waitUs);
      Object.assign(sched, { onCore: ms(runUs), waitingForCore: ms(waitUs), asleep: ms(asleepUs) });
      scheduled.n++;
      scheduled.gapUs += gap.b - gap.a;
      scheduled.runUs += runUs;
      scheduled.waitUs += waitUs;
      scheduled.asleepUs += asleepUs;
      if (gap.f0 && gap.f1) {
        const frontRunUs = (gap.f1[0] - gap.f0[0]) / 1000;
        const frontWaitUs = (gap.f1[1] - gap.f0[1]) / 1000;
        Object.assign(sched, { frontOnCore: ms(frontRunUs), frontWaitingForCore: ms(frontWaitUs) });
        scheduled.frontRunUs += frontRunUs;
        scheduled.frontWaitUs += frontWaitUs;
      }
    }
    listed.push({ at: ((gap.a - phase.s) / 1e6).toFixed(2), ms: ms(gap.b - gap.a), ...Object.fromEntries(Object.entries(parts).filter(([, v]) => v >= 1000).map(([k, v]) => [k, ms(v)])), ...sched });
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
  if (scheduled.n > 0) {
    const share = (us) => `${Math.round(us / 1000)} ms (${Math.round((100 * us) / scheduled.gapUs)}%)`;
    console.log(`  long gaps' worker thread (schedstat, ${scheduled.n} gaps, ${Math.round(scheduled.gapUs / 1000)} ms): on a core ${share(scheduled.runUs)}, runnable waiting for a core ${share(scheduled.waitUs)}, asleep ${share(scheduled.asleepUs)}; the front meanwhile: on a core ${share(scheduled.frontRunUs)}, waiting for one ${share(scheduled.frontWaitUs)}`);
  }
  for (const gap of listed.sort((x, y) => y.ms - x.ms).slice(0, listCount)) console.log(`    ${JSON.stringify(gap)}`);
  const slow = inside.filter((e) => e.k === 'search').sort((x, y) => parseFloat(y.d) - parseFloat(x.d));
  if (slow.length > 0) console.log(`  searches of 10 ms or more (own time): ${slow.length}; longest: ${slow.slice(0, listCount).map((e) => JSON.stringify(e.d)).join(', ')}`);
}
