// FlexSearch 0.8 behind the peer server, configured as its documentation recommends for a search box: a
// Document index over the searchable attributes with `tokenize: "forward"` (prefix matches, for as you
// type), the `Charset.LatinBalance` encoder (its documented balanced default for Latin text: normalizes
// case, accents and some letter variants; FlexSearch has no edit-distance typo tolerance), searched with
// `limit: 20, suggest: true, merge: true` (suggest: documents matching only some words still come back;
// merge: one result list over the fields, each id once).
import FlexSearch from 'flexsearch';
import { runPeer } from './peer-server.js';

await runPeer('flexsearch', ({ documentJson, searchableAttributes }, documents) => {
  // The typings' generics do not follow a runtime-chosen field list; the options are plain data.
  const options = {
    document: { id: 'id', index: searchableAttributes },
    tokenize: 'forward',
    encoder: FlexSearch.Charset.LatinBalance,
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
