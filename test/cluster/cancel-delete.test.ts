// Cluster mode: task cancelations and deletions are deterministic (src/cluster/finished-barrier.ts):
// with writes through two nodes at once and a third node frozen (SIGSTOP) while they run, so that it
// applies the log later and at its own pace, every node ends with the same task list: uids, types,
// statuses, canceledBy, errors and details.
import test from 'ava';
import { call, sleep, waitForTask } from './cluster-client.js';
import { LocalCluster } from './local-cluster.js';

async function fullTaskList(url: string): Promise<string[]> {
  const rows: string[] = [];
  let from: number | null = null;
  for (;;) {
    const answer = await call(url, 'GET', `/tasks?limit=1000${from === null ? '' : `&from=${from}`}`);
    for (const task of answer.body.results) {
      rows.push(`${task.uid} ${task.type} ${task.status} canceledBy=${task.canceledBy} error=${task.error?.code ?? null} ${JSON.stringify(task.details)}`);
    }
    if (answer.body.next === null) return rows;
    from = answer.body.next;
  }
}

function documents(from: number, count: number): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, i) => ({ id: from + i, title: `document ${from + i} ${'word '.repeat(20)}` }));
}

test.serial('after cancelations and deletions amid concurrent writes, every node holds the same tasks', async (t) => {
  const cluster = new LocalCluster({ size: 3 });
  await cluster.start();
  try {
    const [a, b, c] = cluster.nodes.map((node) => node.url) as [string, string, string];
    const first = await call(a, 'POST', '/indexes/docs/documents', documents(0, 10));
    for (const url of [a, b, c]) t.is(await waitForTask(url, first.body.taskUid), 'succeeded');
    // Node 3 frozen: it applies everything below later, at its own pace.
    const frozen = cluster.nodes[2]!.process!;
    frozen.kill('SIGSTOP');
    let last = first.body.taskUid as number;
    try {
      const writer = async (url: string, offset: number) => {
        for (let i = 0; i < 12; i++) {
          const answer = await call(url, 'POST', `/indexes/docs/documents`, documents(offset + i * 200, 200));
          t.is(answer.status, 202, JSON.stringify(answer.body));
          last = Math.max(last, answer.body.taskUid);
        }
      };
      const controls = async () => {
        await sleep(150);
        for (const [url, method, path] of [
          [a, 'POST', '/tasks/cancel?statuses=enqueued,processing'],
          [b, 'DELETE', '/tasks?statuses=succeeded&types=documentAdditionOrUpdate'],
          [b, 'POST', '/tasks/cancel?types=documentAdditionOrUpdate'],
          [a, 'DELETE', '/tasks?statuses=canceled,succeeded'],
        ] as const) {
          const answer = await call(url, method, path);
          t.is(answer.status, 200, JSON.stringify(answer.body));
          last = Math.max(last, answer.body.taskUid);
          await sleep(100);
        }
      };
      await Promise.all([writer(a, 1000), writer(b, 10_000), controls()]);
      // Writes after the last deletion, through both nodes: the lists compared always hold them (on an idle
      // machine every write above may finish before that deletion, which then leaves only itself).
      for (const [url, offset] of [[a, 50_000], [b, 60_000]] as const) {
        const answer = await call(url, 'POST', '/indexes/docs/documents', documents(offset, 5));
        t.is(answer.status, 202, JSON.stringify(answer.body));
        last = Math.max(last, answer.body.taskUid);
      }
      for (const url of [a, b]) await waitForTask(url, last, 120_000);
    } finally {
      frozen.kill('SIGCONT');
    }
    await waitForTask(c, last, 120_000);
    await sleep(500);
    const tasksA = await fullTaskList(a);
    t.true(tasksA.length > 2);
    t.deepEqual(await fullTaskList(b), tasksA);
    t.deepEqual(await fullTaskList(c), tasksA);
    const counts = await Promise.all([a, b, c].map(async (url) => (await call(url, 'GET', '/indexes/docs/stats')).body.numberOfDocuments));
    t.is(counts[1], counts[0]);
    t.is(counts[2], counts[0]);
  } finally {
    await cluster.stop();
  }
});
