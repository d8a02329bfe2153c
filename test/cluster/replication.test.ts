// Cluster mode, replication (issue 23): 3 nats-server + 3 Skein processes on 127.0.0.1. Documents and
// settings written through any node are applied on every node in the task log's order: identical task
// uids, identical search answers. A payload above the inline limit goes through the Object Store.
import test from 'ava';
import { allDocumentIds, call, searchAnswer, taskList, waitForTask } from './cluster-client.js';
import { LocalCluster } from './local-cluster.js';

const GENRES = ['drama', 'comedy', 'horror', 'documentary', 'animation'];

function movies(from: number, count: number, padding = 0): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, i) => {
    const id = from + i;
    return { id, title: `movie ${id} ${['blue', 'red', 'green', 'night', 'sun'][id % 5]} ${['river', 'city', 'moon'][id % 3]}`,
      genre: GENRES[id % GENRES.length], year: 1950 + (id % 70), ...(padding ? { text: 'x'.repeat(padding) } : {}) };
  });
}

const QUERIES: Array<Record<string, unknown>> = [
  { q: 'movie' }, { q: 'blue river', limit: 50 }, { q: 'night', facets: ['genre'], filter: 'year > 1990' },
  { q: '', sort: ['year:desc'], limit: 30 }, { q: 'moon', offset: 5, limit: 7, facets: ['genre', 'year'] },
  { q: 'sun cty' }, { q: 'green', filter: 'genre = drama', hitsPerPage: 10, page: 2 },
];

test.serial('documents and settings written through any node are searchable on every node with identical answers and task uids', async (t) => {
  const cluster = new LocalCluster({ size: 3 });
  await cluster.start();
  try {
    const [a, b, c] = cluster.nodes.map((node) => node.url) as [string, string, string];
    const settings = await call(a, 'PATCH', '/indexes/movies/settings', { filterableAttributes: ['genre', 'year'], sortableAttributes: ['year'] });
    t.is(settings.status, 202, JSON.stringify(settings.body));
    const uids: number[] = [settings.body.taskUid];
    // Writes through every node at once: the log orders them, every node gets the same uids.
    const writes = await Promise.all([
      call(a, 'POST', '/indexes/movies/documents', movies(0, 300)),
      call(b, 'POST', '/indexes/movies/documents', movies(300, 150)),
      call(c, 'POST', '/indexes/movies/documents', movies(450, 150)),
    ]);
    // Then writes that depend on them, through other nodes: a node answers 202 once the log holds the task.
    writes.push(await call(c, 'PUT', '/indexes/movies/documents', movies(0, 50).map((movie) => ({ id: movie.id, year: 2024 }))));
    writes.push(await call(b, 'DELETE', '/indexes/movies/documents/7'));
    for (const write of writes) t.is(write.status, 202, JSON.stringify(write.body));
    uids.push(...writes.map((write) => write.body.taskUid as number));
    t.deepEqual([...new Set(uids)].length, uids.length, 'every task has its own uid');
    // A payload above the inline limit (~1.2 MB): stored in the Object Store, the message carries its name.
    const big = await call(c, 'POST', '/indexes/movies/documents', movies(1000, 600, 2000));
    t.is(big.status, 202, JSON.stringify(big.body));
    uids.push(big.body.taskUid);
    // The accepting node answers its own task at once (read-your-writes).
    t.is((await call(c, 'GET', `/tasks/${big.body.taskUid}`)).status, 200);
    const last = Math.max(...uids);
    t.is(last, uids.length - 1, 'uids are the log sequence - 1, without gaps');
    for (const url of [a, b, c]) t.is(await waitForTask(url, last), 'succeeded');
    for (const url of [a, b, c]) {
      for (const uid of uids) t.is((await call(url, 'GET', `/tasks/${uid}`)).body.status, 'succeeded', `${url} task ${uid}`);
    }
    const tasksA = await taskList(a);
    t.is(tasksA.length, uids.length);
    t.deepEqual(await taskList(b), tasksA);
    t.deepEqual(await taskList(c), tasksA);
    const idsA = await allDocumentIds(a, 'movies');
    t.is(idsA.size, 1199);
    t.false(idsA.has('7'));
    t.deepEqual(await allDocumentIds(b, 'movies'), idsA);
    t.deepEqual(await allDocumentIds(c, 'movies'), idsA);
    for (const query of QUERIES) {
      const answerA = await searchAnswer(a, 'movies', query);
      t.deepEqual(await searchAnswer(b, 'movies', query), answerA, JSON.stringify(query));
      t.deepEqual(await searchAnswer(c, 'movies', query), answerA, JSON.stringify(query));
    }
    const year = await call(b, 'GET', '/indexes/movies/documents/3');
    t.is(year.body.year, 2024, 'the PUT through node 3 applied after the POST through node 1 on node 2 too');
  } finally {
    await cluster.stop();
  }
});

test.serial('with a master key, every node has the same default keys: the search key given by one node searches on all', async (t) => {
  const masterKey = 'cluster-master-key-0123456789';
  const cluster = new LocalCluster({ size: 3, skeinArgs: ['--master-key', masterKey] });
  await cluster.start();
  try {
    const urls = cluster.nodes.map((node) => node.url);
    const keys = await call(urls[0]!, 'GET', '/keys', undefined, 15_000, masterKey);
    t.is(keys.status, 200);
    const searchKey = keys.body.results.find((key: { name: string }) => key.name === 'Default Search API Key').key as string;
    const adminKey = keys.body.results.find((key: { name: string }) => key.name === 'Default Admin API Key').key as string;
    const write = await call(urls[1]!, 'POST', '/indexes/books/documents', [{ id: 1, title: 'dune' }], 15_000, adminKey);
    t.is(write.status, 202, JSON.stringify(write.body));
    for (const url of urls) t.is(await waitForTaskWithKey(url, write.body.taskUid, masterKey), 'succeeded');
    for (const url of urls) {
      const search = await call(url, 'POST', '/indexes/books/search', { q: 'dune' }, 15_000, searchKey);
      t.is(search.status, 200, `${url}: ${JSON.stringify(search.body)}`);
      t.is(search.body.hits.length, 1);
    }
  } finally {
    await cluster.stop();
  }
});

async function waitForTaskWithKey(url: string, uid: number, key: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await call(url, 'GET', `/tasks/${uid}`, undefined, 15_000, key);
    if (answer.status === 200 && ['succeeded', 'failed', 'canceled'].includes(answer.body.status)) return answer.body.status;
    if (Date.now() > deadline) throw new Error(`${url}: task ${uid}: ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
