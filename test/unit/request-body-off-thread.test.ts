// Inflating a request body on libuv's thread pool costs one event-loop turn per output chunk: with
// Node's 16 KiB chunks a 25 MB body took 8 s while the front's loop was busy (a fuzz request went
// unanswered for 15 s under load). This holds the chunk size to a few dozen round trips.
import test from 'ava';
import { gzipSync } from 'node:zlib';
import { decodeContentOffThread } from '../../src/front/http/request-body.js';

test('a 25 MB gzip body inflates in a few round trips while the event loop is busy', async (t) => {
  const body = Buffer.from(`{"a":"${'</em>'.repeat(5_000_000)}"}`);
  const compressed = gzipSync(body);
  let busy = true;
  // The front under load: the loop busy in 5 ms slices, so each thread-pool answer waits for a turn.
  const spin = () => {
    const until = Date.now() + 5;
    while (Date.now() < until);
    if (busy) setImmediate(spin);
  };
  setImmediate(spin);
  const started = Date.now();
  try {
    const decoded = await decodeContentOffThread(compressed, 'gzip', 100 * 2 ** 20);
    t.is(decoded.length, body.length);
  } finally {
    busy = false;
  }
  const took = Date.now() - started;
  t.log(`inflated ${body.length} bytes in ${took} ms`);
  // 16 KiB chunks: ~1,500 turns of >= 5 ms (8.2 s measured); 1 MiB: ~25 turns.
  t.true(took < 3000, `took ${took} ms`);
});
