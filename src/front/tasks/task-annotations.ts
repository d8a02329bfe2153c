// What a client may attach to a write it enqueues: `customMetadata` (Meilisearch 1.2x) on the document
// routes, kept on the task as given and shown in its view (TaskAnnotations in src/tasks/task-record.ts).
import type { TaskAnnotations } from '../../tasks/task-record.js';

export function customMetadata(query: URLSearchParams): TaskAnnotations {
  const value = query.get('customMetadata');
  return value === null ? {} : { customMetadata: value };
}
