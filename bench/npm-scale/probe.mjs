// Search latency: the queries of queries.txt, 4 at a time, twice (the first pass warms), p50/p99 of the second.
import { readFileSync } from 'node:fs';
const [url, index] = [process.argv[2], process.argv[3]];
const queries = readFileSync('/tmp/npmdata/queries.txt', 'utf8').split('\n').filter(Boolean);
async function pass() {
  const times = [];
  let next = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < queries.length) {
      const q = queries[next++];
      const t0 = performance.now();
      const r = await fetch(`${url}/indexes/${index}/search?q=${encodeURIComponent(q)}&limit=20`);
      await r.arrayBuffer();
      if (!r.ok) throw new Error(`status ${r.status}`);
      times.push(performance.now() - t0);
    }
  }));
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)].toFixed(2), p90: times[Math.floor(times.length * 0.9)].toFixed(2), p99: times[Math.floor(times.length * 0.99)].toFixed(2) };
}
const cold = await pass();
const warm = await pass();
console.log(JSON.stringify({ cold, warm }));
