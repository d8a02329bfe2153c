import test from 'ava';
import { summarizedTask, taskView } from '../../src/tasks/task-view.js';
import { failedDetails, initialDetails, settingsDetails } from '../../src/tasks/task-details.js';
import { formatDurationMicros, formatMicros, isoDuration, nowRfc3339, parseRfc3339Micros } from '../../src/tasks/timestamps.js';
import type { TaskRecord } from '../../src/tasks/task-record.js';

const record: TaskRecord = {
  uid: 4, batchUid: 4, indexUid: 'movies', status: 'succeeded', type: 'documentAdditionOrUpdate', canceledBy: null,
  details: { receivedDocuments: 3, indexedDocuments: 3 }, error: null,
  enqueuedAt: '2024-01-01T00:00:00.000000Z', startedAt: '2024-01-01T00:00:00.100000Z', finishedAt: '2024-01-01T00:00:00.104503Z',
  content: { type: 'documentAdditionOrUpdate', indexUid: 'movies', method: 'replace', updateFile: 'f', documentCount: 3, primaryKey: null },
};

test('task view: Meilisearch field order, duration, no content', (t) => {
  const view = taskView(record);
  t.deepEqual(Object.keys(view), ['uid', 'batchUid', 'indexUid', 'status', 'type', 'canceledBy', 'details', 'error', 'duration', 'enqueuedAt', 'startedAt', 'finishedAt']);
  t.is(view.duration, 'PT0.004503S');
});

test('task view omits details when the type has none; duration null until finished', (t) => {
  const view = taskView({ ...record, details: null, status: 'processing', finishedAt: null });
  t.false('details' in view);
  t.is(view.duration, null);
});

test('summarized task', (t) => {
  t.deepEqual(summarizedTask(record), { taskUid: 4, indexUid: 'movies', status: 'succeeded', type: 'documentAdditionOrUpdate', enqueuedAt: '2024-01-01T00:00:00.000000Z' });
});

test('durations print like serialize_duration', (t) => {
  t.is(formatDurationMicros(0), 'PT0S');
  t.is(formatDurationMicros(1_500_000), 'PT1.500S');
  t.is(formatDurationMicros(4503), 'PT0.004503S');
  t.is(formatDurationMicros(86_400_000_000), 'P1D');
  t.is(formatDurationMicros(86_401_000_000), 'P1DT1S');
  t.is(isoDuration('2024-01-01T00:00:01Z', '2024-01-01T00:00:00Z'), null);
});

test('timestamps: microsecond RFC 3339 round trip, offsets', (t) => {
  const now = nowRfc3339();
  t.regex(now, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  t.is(formatMicros(parseRfc3339Micros(now)!), now);
  t.is(parseRfc3339Micros('2024-01-01T02:00:00+02:00'), Date.UTC(2024, 0, 1) * 1000);
  t.is(parseRfc3339Micros('2024-02-30T00:00:00Z'), null);
  t.is(parseRfc3339Micros('2024-01-01'), null);
});

test('initial and failed details per type', (t) => {
  t.deepEqual(initialDetails({ type: 'documentDeletion', indexUid: 'a', ids: ['1', '2'] }), { providedIds: 2, deletedDocuments: null, originalFilter: null });
  t.deepEqual(initialDetails({ type: 'documentDeletion', indexUid: 'a', clear: true }), { deletedDocuments: null });
  t.deepEqual(initialDetails({ type: 'indexDeletion', indexUid: 'a' }), { deletedDocuments: null });
  t.deepEqual(initialDetails({ type: 'taskCancelation', filter: {}, originalFilter: '?uids=1', matchedUids: [1] }), { matchedTasks: 1, canceledTasks: null, originalFilter: '?uids=1' });
  t.deepEqual(failedDetails({ matchedTasks: 1, deletedTasks: null, originalFilter: '?uids=1' }), { matchedTasks: 1, deletedTasks: 0, originalFilter: '?uids=1' });
  t.deepEqual(failedDetails({ primaryKey: 'id' }), { primaryKey: 'id' });
});

test('settings details: submitted keys in struct order, resets rendered', (t) => {
  t.deepEqual(settingsDetails({ rankingRules: null, filterableAttributes: ['genre'] }, false), { filterableAttributes: ['genre'], rankingRules: null });
  t.deepEqual(Object.keys(settingsDetails({ rankingRules: null, displayedAttributes: ['a'] }, false)), ['displayedAttributes', 'rankingRules']);
  t.deepEqual(settingsDetails({ searchableAttributes: null, displayedAttributes: ['a', '*'] }, false), { displayedAttributes: ['*'], searchableAttributes: ['*'] });
  const reset = settingsDetails({}, true);
  t.deepEqual(reset.displayedAttributes, ['*']);
  t.is(reset.stopWords, null);
  t.is(reset.foreignKeys, null, 'Settings::cleared() resets foreignKeys too');
  t.is(Object.keys(reset).length, 21);
});
