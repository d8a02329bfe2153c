// The stall trace's scheduler counters (src/shard/stall-trace.ts): each answer posted carries the
// run and runnable-wait ns of the posting thread and of the front's, and bench/stall-attribution.mjs
// splits a long gap between answers into the worker on a core, waiting for one and asleep.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { StallTrace } from '../../src/shard/stall-trace.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

test('an answer posted carries this thread\'s and the front\'s schedstat counters, growing by the time spent', (t) => {
  if (!existsSync('/proc/thread-self/schedstat')) return t.pass('no procfs here');
  const directory = mkdtempSync(join(tmpdir(), 'skein-stall-trace-'));
  const before = process.env.SKEIN_STALL_TRACE;
  try {
    process.env.SKEIN_STALL_TRACE = directory;
    const trace = StallTrace.fromEnvironment(7)!;
    // Spin until this thread's own counters (read here, apart from the trace) grew by 35 ms: a fixed
    // 30 ms of wall time is not enough on a virtual machine, where time stolen by the host is neither run
    // nor runnable-wait (a CI run saw 10 ms of 30). Bounded: 5 s of wall time.
    const ownSpent = (): number => {
      const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ');
      return Number(run) + Number(wait);
    };
    const spentBefore = ownSpent();
    trace.posted();
    const started = performance.now();
    while (ownSpent() - spentBefore < 35e6 && performance.now() - started < 5000); // on a core or waiting for one
    trace.posted();
    trace.flush();
    const posts = readFileSync(join(directory, 'worker-7.ndjson'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((e) => e.k === 'post');
    t.is(posts.length, 2);
    for (const post of posts) {
      for (const counters of [post.q, post.f]) {
        t.true(Array.isArray(counters) && counters.length === 2 && counters.every((n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0), JSON.stringify(post));
      }
    }
    const [first, second] = posts;
    const spentNs = second.q[0] - first.q[0] + second.q[1] - first.q[1];
    // A running thread's run time is brought up to date at each scheduler tick (a few ms): a margin of 15 ms.
    t.true(spentNs >= 20e6, `run + wait ${spentNs} ns over a spin its own counters put at 35 ms or more`);
    t.true(spentNs <= (second.s - first.s) * 1000 + 10e6, `run + wait ${spentNs} ns within the ${second.s - first.s} µs between the posts`);
  } finally {
    if (before === undefined) delete process.env.SKEIN_STALL_TRACE;
    else process.env.SKEIN_STALL_TRACE = before;
    rmSync(directory, { recursive: true, force: true });
  }
});

test('stall-attribution splits a long gap by the worker\'s counters: on a core, waiting for one, asleep; and the front\'s', (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'skein-stall-attribution-'));
  try {
    const file = join(directory, 'worker-0.ndjson');
    // A 100 ms gap: a batch of 80 ms in it, the worker 20 ms on a core and 60 ms runnable, the front 5 and 30 ms.
    const lines = [
      { k: 'post', s: 1_000_000, q: [1e9, 2e9], f: [3e9, 4e9] },
      { k: 'batch', s: 1_010_000, e: 1_090_000, d: 16 },
      { k: 'post', s: 1_100_000, q: [1e9 + 20e6, 2e9 + 60e6], f: [3e9 + 5e6, 4e9 + 30e6] },
      { k: 'post', s: 1_104_000, q: [1e9 + 24e6, 2e9 + 60e6], f: [3e9 + 6e6, 4e9 + 30e6] },
    ];
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bench/stall-attribution.mjs'), file, '--gap', '50'], { encoding: 'utf8' });
    t.is(run.status, 0, run.stderr);
    t.regex(run.stdout, /over 50 ms: 1, 100 ms in all/);
    t.regex(run.stdout, /on a core 20 ms \(20%\), runnable waiting for a core 60 ms \(60%\), asleep 20 ms \(20%\); the front meanwhile: on a core 5 ms \(5%\), waiting for one 30 ms \(30%\)/);
    t.regex(run.stdout, /"onCore":20,"waitingForCore":60,"asleep":20,"frontOnCore":5,"frontWaitingForCore":30/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
