// FlexSearch behind the peer server: a Document index over the searchable attributes with "forward"
// tokenization (prefix matches, for as-you-type), the LatinAdvanced encoder (FlexSearch has no edit
// distance; its phonetic normalization is its nearest answer to typos) and `suggest` so documents
// matching only some of the words still come back, as with Meilisearch's "last" strategy.
import FlexSearch from 'flexsearch';
import { runPeer } from './peer-server.js';

await runPeer('flexsearch', ({ documentJson, searchableAttributes }, documents) => {
  // The typings' generics do not follow a runtime-chosen field list; the options are plain data.
  const options = {
    document: { id: 'id', index: searchableAttributes },
    tokenize: 'forward',
    encoder: FlexSearch.Charset.LatinAdvanced,
  } as unknown as ConstructorParameters<typeof FlexSearch.Document>[0];
  const index = new FlexSearch.Document(options);
  for (const document of documents) index.add(document as never);
  return {
    search(q, limit) {
      const results = index.search(q, { limit, suggest: true, merge: true } as never) as unknown as Array<{ id: number }>;
      return { hits: results.slice(0, limit).map((result) => documentJson[result.id]), estimatedTotalHits: results.length };
    },
  };
});
