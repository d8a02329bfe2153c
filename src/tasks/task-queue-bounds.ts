// Meilisearch's TASK_SCHEDULER_SIZE_THRESHOLD_PERCENT_INT: new tasks are refused once the task store
// uses this share of its bound (the scheduler refuses, /stats shows the room left).
export const TASK_STORE_THRESHOLD_PERCENT = 40;
