// RemoteAvailability (src/network/remote-availability.ts): a failure makes a remote unavailable for
// 30 s, doubling up to 5 min; expired periods start over; drained (indefinite) until marked available;
// at most 1000 names kept.
import test from 'ava';
import { RemoteAvailability } from '../../src/network/remote-availability.js';

test('failures back off 30 s doubling to 5 min, drained remotes stay drained, names are bounded', (t) => {
  let now = 1_000_000;
  const availability = new RemoteAvailability(() => now);
  t.true(availability.isAvailable('a'));
  availability.markUnavailable('a');
  t.is(availability.status('a'), 'unavailable');
  t.true(availability.isCoolingDown('a'));
  now += 30_001;
  t.true(availability.isAvailable('a'), 'after 30 s');
  availability.markUnavailable('a');
  availability.markUnavailable('a'); // 60 s
  availability.markUnavailable('a'); // 120 s
  now += 119_000;
  t.false(availability.isAvailable('a'));
  now += 2_000;
  t.true(availability.isAvailable('a'), 'the period doubled twice');
  for (let i = 0; i < 12; i++) availability.markUnavailable('b');
  now += 5 * 60_000 - 1;
  t.false(availability.isAvailable('b'));
  now += 2;
  t.true(availability.isAvailable('b'), 'capped at 5 min');

  availability.markUnavailableIndefinitely('c');
  availability.markUnavailable('c');
  now += 24 * 3600_000;
  t.false(availability.isAvailable('c'));
  t.true(availability.isDrained('c'));
  t.false(availability.isCoolingDown('c'));
  availability.markAvailable('c');
  t.true(availability.isAvailable('c'));

  for (let i = 0; i < 5000; i++) availability.markUnavailableIndefinitely(`n${i}`);
  t.true(availability.isAvailable('n0'), 'the oldest names went');
  t.false(availability.isAvailable('n4999'));
});
