// Whether terminating the build helper thread can bring the process down (src/build-helper/): lanes
// of BuildHelperClient builds over a synthetic arena (20,000 documents of 8 tokens), each client
// closed (Tinypool destroy: worker.terminate()) 0-400 ms after its build was sent, so threads end
// while starting, loading their modules, building, or idle. As a shard worker's exit does to its helper.
//   npx tsc -p . && node bench/build-helper-end-probe.mjs [seconds=20] [lanes=4]
// Measured (session 37, 2 cores, Node 20.20.2): with the helper's modules importing roaring (the pair
// tables' lookup class), 1 run of 2 aborted ("FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal" in
// roaring's module registration, a thread terminated while loading it); with the build code apart
// (pair-table-build.ts, prefix-table-keys.ts: no roaring), 4 runs of 4 finished (~290 threads a run).
import { BuildHelperClient } from '../dist/src/shard/build-helper-client.js';

const seconds = Number(process.argv[2] ?? 20);
const lanes = Number(process.argv[3] ?? 4);

function request(documentCount = 20_000, words = 3_000) {
  const arena = [];
  const offsets = new Int32Array(documentCount);
  const documents = new Uint32Array(documentCount);
  for (let docId = 0; docId < documentCount; docId++) {
    documents[docId] = docId;
    offsets[docId] = arena.length;
    arena.push(1, 8, 0); // one field of rank 0, 8 tokens
    for (let k = 0; k < 8; k++) arena.push(Math.floor(Math.random() ** 2 * words), k);
  }
  const slotOfWord = new Int32Array(words).fill(-1);
  for (let wordId = 0; wordId < 100; wordId++) slotOfWord[wordId] = wordId;
  return {
    arena: Uint32Array.from(arena), documents, offsets,
    nearPairs: { slotOfWord, slotCount: 100, tableOfWord: new Int32Array(words).fill(-1), splitOfWord: new Int32Array(words).fill(-1), prefixCount: 0 },
    tokenKeys: [{ key: 'position', limit: 4, wordCount: words }],
  };
}

const end = Date.now() + seconds * 1000;
let builds = 0;
let finished = 0;
await Promise.all(Array.from({ length: lanes }, async () => {
  while (Date.now() < end) {
    const client = new BuildHelperClient();
    client.minDocuments = 1;
    const answer = client.build(request()).then(() => finished++, () => {});
    builds++;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 400));
    await client.close();
    await answer;
  }
}));
console.log(JSON.stringify({ builds, finished }));
