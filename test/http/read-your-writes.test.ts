// Read-your-writes between the scheduler's commit and the front's caches (protocol/commit-fence.ts):
// once a task reads `succeeded`, the index's settings and documents read as that task left them, even
// while the scheduler has not announced the commit yet (paused at `afterCommit`, deterministically).
import test from 'ava';
import { startTestServer } from './harness.js';

const AFTER_COMMIT = { thread: 'scheduler', point: 'afterCommit' } as const;

test('a task read as succeeded before its commit is announced: settings and documents already read new', async (t) => {
  const server = await startTestServer({ testHooks: {} });
  try {
    const { client } = server;
    await client.addDocuments('ryw', [{ id: 1, title: 'old title' }]);
    // Both into the front's caches: the index record and the stored document.
    t.deepEqual((await client.get('/indexes/ryw/settings/stop-words')).body, []);
    t.is((await client.get('/indexes/ryw/documents/1')).body.title, 'old title');
    t.is((await client.post('/indexes/ryw/search', { q: 'title' })).body.hits[0].title, 'old title');

    server.testHooks!.armThreadFailure({ ...AFTER_COMMIT, how: 'pause' });
    const settingsUid = await client.enqueue('PUT', '/indexes/ryw/settings/stop-words', { body: ['the', 'a'] });
    await server.testHooks!.whenThreadPaused(AFTER_COMMIT);
    t.is((await client.get(`/tasks/${settingsUid}`)).body.status, 'succeeded');
    t.deepEqual((await client.get('/indexes/ryw/settings/stop-words')).body, ['a', 'the']);
    t.deepEqual((await client.get('/indexes/ryw/settings')).body.stopWords, ['a', 'the']);
    server.testHooks!.releaseThreadPause(AFTER_COMMIT);
    await client.waitForTask(settingsUid);

    server.testHooks!.armThreadFailure({ ...AFTER_COMMIT, how: 'pause' });
    const documentUid = await client.enqueue('POST', '/indexes/ryw/documents', { body: [{ id: 1, title: 'new title' }] });
    await server.testHooks!.whenThreadPaused(AFTER_COMMIT);
    t.is((await client.get(`/tasks/${documentUid}`)).body.status, 'succeeded');
    t.is((await client.get('/indexes/ryw/documents/1')).body.title, 'new title');
    t.is((await client.post('/indexes/ryw/search', { q: 'title' })).body.hits[0].title, 'new title');
    server.testHooks!.releaseThreadPause(AFTER_COMMIT);
    await client.waitForTask(documentUid);
    // Announced: the caches serve again, with the new values.
    t.is((await client.get('/indexes/ryw/documents/1')).body.title, 'new title');
    t.deepEqual((await client.get('/indexes/ryw/settings/stop-words')).body, ['a', 'the']);
  } finally {
    await server.close();
  }
});
