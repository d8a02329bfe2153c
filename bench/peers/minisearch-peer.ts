// MiniSearch behind the peer server: OR of the query words (Meilisearch's default "last" strategy also
// returns documents matching only some words), prefix search on the last word (as-you-type), and
// Meilisearch's default typo budget (1 edit from 5 letters, 2 from 9).
import MiniSearch from 'minisearch';
import { runPeer } from './peer-server.js';

function typoBudget(term: string): number {
  return term.length >= 9 ? 2 : term.length >= 5 ? 1 : 0;
}

await runPeer('minisearch', ({ documentJson, searchableAttributes }, documents) => {
  const index = new MiniSearch<Record<string, unknown>>({
    fields: searchableAttributes,
    idField: 'id',
    storeFields: [],
    // Searchable attributes rank earlier ones higher in Meilisearch; a boost is MiniSearch's nearest tool.
    searchOptions: { boost: Object.fromEntries(searchableAttributes.map((field, i) => [field, searchableAttributes.length - i])) },
  });
  index.addAll(documents);
  return {
    search(q, limit) {
      const results = index.search(q, {
        prefix: (_term, position, terms) => position === terms.length - 1,
        fuzzy: (term) => typoBudget(term),
        combineWith: 'OR',
      });
      return { hits: results.slice(0, limit).map((result) => documentJson[result.id as number]), estimatedTotalHits: results.length };
    },
  };
});
