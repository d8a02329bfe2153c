// SnapshotTrigger: snapshots are asked for only after a quiet delay with the scheduler idle, never
// while it works (a bulk load), and never after stop().
import test from 'ava';
import { saveSnapshots, SnapshotTrigger } from '../../src/scheduler/shards/snapshot-commands.js';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

test('saves once after the quiet delay following the last poke', async (t) => {
  let saves = 0;
  const trigger = new SnapshotTrigger(() => true, async () => { saves++; }, 40);
  trigger.poke();
  await sleep(20);
  trigger.poke(); // a new commit restarts the delay
  await sleep(30);
  t.is(saves, 0);
  await sleep(40);
  t.is(saves, 1);
  await sleep(60);
  t.is(saves, 1, 'one save per quiet period');
});

test('waits while the scheduler is busy, and stop() cancels', async (t) => {
  let saves = 0;
  let idle = false;
  const trigger = new SnapshotTrigger(() => idle, async () => { saves++; }, 20);
  trigger.poke();
  await sleep(70);
  t.is(saves, 0, 'busy: no save');
  idle = true;
  await sleep(40);
  t.is(saves, 1);
  trigger.poke();
  trigger.stop();
  await sleep(50);
  t.is(saves, 1);
});

test('saveSnapshots asks every worker, with prepareSearch only when the scheduler is quiet (not at shutdown)', async (t) => {
  const sent: { worker: number; command: unknown }[] = [];
  const shards = { workerCount: 2, send: async (worker: number, command: unknown) => { sent.push({ worker, command }); } };
  await saveSnapshots(shards as never, () => {}, true);
  await saveSnapshots(shards as never, () => {}, false);
  t.deepEqual(sent, [
    { worker: 0, command: { kind: 'saveSnapshots', prepareSearch: true } },
    { worker: 1, command: { kind: 'saveSnapshots', prepareSearch: true } },
    { worker: 0, command: { kind: 'saveSnapshots', prepareSearch: false } },
    { worker: 1, command: { kind: 'saveSnapshots', prepareSearch: false } },
  ]);
});
