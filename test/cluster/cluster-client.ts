// HTTP helpers of the cluster tests: plain fetch against the nodes of a LocalCluster.
export interface Answer {
  status: number;
  body: any;
}

export async function call(url: string, method: string, path: string, body?: unknown, timeoutMs = 15_000, key?: string): Promise<Answer> {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const init: RequestInit = { method, signal: AbortSignal.timeout(timeoutMs), headers };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${url}${path}`, init);
  const text = await response.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  return { status: response.status, body: parsed };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `url` has task `uid` finished and nothing enqueued or processing; returns its status. */
export async function waitForTask(url: string, uid: number, timeoutMs = 60_000, key?: string): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call(url, 'GET', `/tasks/${uid}`, undefined, 15_000, key).catch(() => null);
    const status = answer?.status === 200 ? answer.body.status : null;
    if (status === 'succeeded' || status === 'failed' || status === 'canceled') return status;
    if (Date.now() > deadline) throw new Error(`${url}: task ${uid} not finished after ${timeoutMs} ms (${JSON.stringify(answer?.body)})`);
    await sleep(100);
  }
}

/** Every task of a node: uid, type, status, indexUid, enqueuedAt (what must be equal on every node). */
export async function taskList(url: string): Promise<string[]> {
  const rows: string[] = [];
  let from: number | null = null;
  for (;;) {
    const answer = await call(url, 'GET', `/tasks?limit=1000${from === null ? '' : `&from=${from}`}`);
    for (const task of answer.body.results) rows.push(`${task.uid} ${task.type} ${task.status} ${task.indexUid} ${task.enqueuedAt} ${JSON.stringify(task.details)}`);
    if (answer.body.next === null) return rows;
    from = answer.body.next;
  }
}

/** A search's answer without the fields that differ by node or run. */
export async function searchAnswer(url: string, index: string, query: Record<string, unknown>): Promise<unknown> {
  const answer = await call(url, 'POST', `/indexes/${index}/search`, query);
  if (answer.status !== 200) throw new Error(`${url}: search ${JSON.stringify(query)} answered ${answer.status} ${JSON.stringify(answer.body)}`);
  const { processingTimeMs: _time, ...rest } = answer.body;
  return rest;
}

export async function allDocumentIds(url: string, index: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let offset = 0; ; offset += 1000) {
    const answer = await call(url, 'GET', `/indexes/${index}/documents?limit=1000&offset=${offset}&fields=id`);
    if (answer.status !== 200) throw new Error(`${url}: documents answered ${answer.status} ${JSON.stringify(answer.body)}`);
    for (const document of answer.body.results) ids.add(String(document.id));
    if (answer.body.results.length < 1000) return ids;
  }
}
