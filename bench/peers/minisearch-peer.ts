// MiniSearch 7 behind the peer server, with the search options its documentation recommends for a search
// box: `prefix: true` (every term also matches as a prefix) and `fuzzy: 0.2` (edit distance up to 20% of
// the term's length), OR of the terms (its default), and the first searchable attribute boosted 2x
// (`boost: { name: 2 }` in its README's example) as Meilisearch ranks earlier attributes higher.
import MiniSearch from 'minisearch';
import { runPeer } from './peer-server.js';

await runPeer('minisearch', ({ documentJson, searchableAttributes }, documents) => {
  const index = new MiniSearch<Record<string, unknown>>({
    fields: searchableAttributes,
    idField: 'id',
    storeFields: [],
    searchOptions: { prefix: true, fuzzy: 0.2, boost: { [searchableAttributes[0]]: 2 } },
  });
  index.addAll(documents);
  return {
    search(q, limit) {
      const results = index.search(q);
      return { hits: results.slice(0, limit).map((result) => documentJson[result.id as number]), estimatedTotalHits: results.length };
    },
  };
});
