// The fixed-response ceiling: the same uWS server answering every search with the same 20 hits (the
// dataset's first documents), without searching. Its queries/s bound what any engine can reach here.
import { runPeer } from './peer-server.js';

await runPeer('ceiling', ({ documentJson }) => {
  const fixed = documentJson.slice(0, 20);
  return { search: (_q, limit) => ({ hits: fixed.slice(0, limit), estimatedTotalHits: fixed.length }) };
});
