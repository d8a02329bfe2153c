// Latency of a search whose 20 hits hold 50 foreign ids each (1,000 hydrated), before and after setting foreignKeys.
// Usage: start a server on 127.0.0.1:PORT (empty data folder), then: node bench/foreign-keys-probe.mjs PORT
const base = `http://127.0.0.1:${process.argv[2] ?? 7700}`;
const j = (m, p, b) => fetch(base + p, { method: m, headers: { 'content-type': 'application/json' }, body: b === undefined ? undefined : JSON.stringify(b) }).then((r) => r.json());
async function wait(t) { for (;;) { const s = await j('GET', `/tasks/${t.taskUid}`); if (['succeeded', 'failed'].includes(s.status)) return s; await new Promise((r) => setTimeout(r, 20)); } }
await j('PATCH', '/experimental-features', { foreignKeys: true });
await wait(await j('POST', '/indexes/tags/documents', Array.from({ length: 1100 }, (_, i) => ({ id: i, label: `tag number ${i}`, weight: i * 3 }))));
await wait(await j('POST', '/indexes/posts/documents', Array.from({ length: 20 }, (_, p) => ({ id: p, title: 'many', tags: Array.from({ length: 50 }, (_, i) => (p * 50 + i) % 1100) }))));
async function time(label) {
  const times = [];
  for (let i = 0; i < 200; i++) { const t0 = performance.now(); await j('POST', '/indexes/posts/search', { q: 'many' }); times.push(performance.now() - t0); }
  times.sort((a, b) => a - b);
  console.log(label, 'median ms', times[100].toFixed(2), 'p90', times[180].toFixed(2));
}
await time('no foreignKeys      ');
await wait(await j('PUT', '/indexes/posts/settings/foreign-keys', [{ foreignIndexUid: 'tags', fieldName: 'tags' }]));
await time('1,000 ids hydrated  ');
const r = await j('POST', '/indexes/posts/search', { q: 'many' });
console.log('hydrated objects in answer:', r.hits.flatMap((h) => h.tags).filter((x) => typeof x === 'object').length);
