// Orama 3 behind the peer server, as its documentation shows full-text search: a string schema over the
// searchable attributes, `search(db, { term, limit, tolerance: 1, boost })` (Orama matches every term as a
// prefix by default; `tolerance: 1` allows one edit per term; the first attribute boosted 2x as Meilisearch
// ranks earlier attributes higher).
import { create, insertMultiple, search } from '@orama/orama';
import { runPeer } from './peer-server.js';

await runPeer('orama', async ({ documentJson, searchableAttributes }, documents) => {
  const schema = Object.fromEntries(searchableAttributes.map((field) => [field, 'string' as const]));
  const db = create({ schema });
  const asStrings = documents.map((document) => ({
    id: String(document.id),
    ...Object.fromEntries(searchableAttributes.map((field) => [field, String(document[field] ?? '')])),
  }));
  await insertMultiple(db, asStrings as never, 1000);
  const boost = { [searchableAttributes[0]]: 2 };
  return {
    async search(q, limit) {
      const result = await search(db, { term: q, limit, tolerance: 1, boost } as never);
      return { hits: result.hits.map((hit) => documentJson[Number(hit.id)]), estimatedTotalHits: result.count };
    },
  };
});
