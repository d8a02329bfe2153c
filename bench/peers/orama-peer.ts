// Orama behind the peer server: string schema over the searchable attributes, prefix matching (Orama's
// default for every term) and `tolerance: 1` (one edit, Meilisearch's budget for most words), with
// searchable attributes boosted in their order as Meilisearch ranks them.
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
  const boost = Object.fromEntries(searchableAttributes.map((field, i) => [field, searchableAttributes.length - i]));
  return {
    async search(q, limit) {
      const result = await search(db, { term: q, limit, tolerance: 1, boost } as never);
      return { hits: result.hits.map((hit) => documentJson[Number(hit.id)]), estimatedTotalHits: result.count };
    },
  };
});
