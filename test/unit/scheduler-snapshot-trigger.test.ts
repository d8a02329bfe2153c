// SnapshotTrigger: snapshots are asked for only after a quiet delay with the scheduler idle, never
// while it works (a bulk load), and never after stop().
import test from 'ava';
import { SnapshotTrigger } from '../../src/scheduler/snapshot-commands.js';

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
