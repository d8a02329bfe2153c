import test from 'ava';
import { startRssSampler } from '../../bench/rss-sampler.js';

test('the sampler keeps the highest RSS seen while it ran and the process peak at its end', async (t) => {
  const sampler = startRssSampler(process.pid, 10);
  // Touch ~64 MiB so the peak is above the starting RSS.
  const held = Buffer.alloc(64 * 1048576, 1);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const peak = sampler.stop();
  t.true(held.length > 0);
  t.true(peak.samples >= 2);
  t.true((peak.maxSampledRssBytes ?? 0) > 64 * 1048576);
  t.true((peak.peakRssBytes ?? 0) >= (peak.maxSampledRssBytes ?? 0));
});

test('a process that is gone gives null figures, not a throw', (t) => {
  const peak = startRssSampler(2 ** 22 + 12345, 10).stop();
  t.deepEqual(peak, { maxSampledRssBytes: null, peakRssBytes: null, samples: 0 });
});
