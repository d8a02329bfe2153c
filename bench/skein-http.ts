// The few Meilisearch-API calls the harness makes outside the load generator: enqueue work, read
// tasks, read stats. Uses Node's global fetch (keep-alive by default).

export interface TaskView {
  uid: number;
  status: string;
  type?: string;
  error?: { message?: string; code?: string } | null;
  details?: Record<string, unknown>;
  enqueuedAt?: string | null;
  startedAt?: string | null;
  finishedAt?: string | null;
}

export class BenchHttpError extends Error {
  constructor(readonly method: string, readonly path: string, readonly status: number, readonly responseText: string) {
    super(`${method} ${path} -> HTTP ${status}: ${responseText.slice(0, 500)}`);
  }
}

const finishedStatuses = new Set(['succeeded', 'failed', 'canceled']);

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

export class SkeinHttpClient {
  constructor(readonly baseUrl: string, private readonly apiKey?: string) {}

  async request(method: string, path: string, body?: string | Buffer<ArrayBuffer>, contentType = 'application/json'): Promise<{ status: number; json: unknown; text: string }> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = contentType;
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const response = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await response.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: keep the text for the error message.
    }
    return { status: response.status, json, text };
  }

  /** Sends a request that must answer 202 with a summarized task; returns its taskUid. */
  async enqueue(method: string, path: string, body?: string | Buffer<ArrayBuffer>, contentType?: string): Promise<number> {
    const { status, json, text } = await this.request(method, path, body, contentType);
    const taskUid = (json as { taskUid?: unknown } | null)?.taskUid;
    if (status !== 202 || typeof taskUid !== 'number') throw new BenchHttpError(method, path, status, text);
    return taskUid;
  }

  async getTask(uid: number): Promise<TaskView> {
    const path = `/tasks/${uid}`;
    const { status, json, text } = await this.request('GET', path);
    if (status !== 200 || typeof (json as TaskView | null)?.status !== 'string') throw new BenchHttpError('GET', path, status, text);
    return json as TaskView;
  }

  /** Polls until the task is finished; throws unless it succeeded. */
  async waitForTask(uid: number, timeoutMs: number, pollMs = 50): Promise<TaskView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const task = await this.getTask(uid);
      if (finishedStatuses.has(task.status)) {
        if (task.status !== 'succeeded') {
          throw new Error(`task ${uid} (${task.type ?? '?'}) ${task.status}: ${JSON.stringify(task.error ?? null)}`);
        }
        return task;
      }
      if (Date.now() > deadline) throw new Error(`task ${uid} still ${task.status} after ${timeoutMs / 1000} s`);
      await sleep(pollMs);
    }
  }

  /** Resolves once GET /health answers 200, or rejects after the timeout or when `aborted()` says so. */
  async waitUntilHealthy(timeoutMs: number, pollMs: number, aborted: () => string | null): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reason = aborted();
      if (reason) throw new Error(reason);
      try {
        const { status } = await this.request('GET', '/health');
        if (status === 200) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`server not healthy after ${timeoutMs / 1000} s`);
      await sleep(pollMs);
    }
  }
}
