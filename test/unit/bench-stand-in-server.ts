// A tiny Meilisearch-API look-alike for testing the bench harness without Skein: it accepts documents
// (JSON or NDJSON) as tasks that succeed after a delay, and answers searches with empty hits.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInOptions {
  /** 0 (any free port) unless given. */
  port?: number;
  /** How long a task stays processing. */
  taskDelayMs?: number;
  /** Status to answer a search with; 200 unless this says otherwise. */
  searchStatus?: (q: string) => number;
  /** Make document tasks fail with this error code. */
  failDocuments?: boolean;
  /** estimatedTotalHits of a search (hits stay empty); 0 unless this says otherwise. */
  searchHits?: (q: string) => number;
  /** Milliseconds before a search is answered (a slow engine); 0 unless given. */
  searchDelayMs?: number;
}

interface StandInTask {
  uid: number;
  type: string;
  indexUid: string;
  enqueuedAt: string;
  startedAt: string;
  finishedAt: string | null;
  readyAt: number;
  fails: boolean;
}

export interface StandIn {
  baseUrl: string;
  documentCount: number;
  contentTypes: string[];
  searchedQueries: string[];
  settings: unknown[];
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

export async function startStandIn(options: StandInOptions = {}): Promise<StandIn> {
  const tasks: StandInTask[] = [];
  const enqueue = (type: string, indexUid: string, fails = false) => {
    const now = Date.now();
    const task: StandInTask = {
      uid: tasks.length, type, indexUid, fails,
      enqueuedAt: new Date(now).toISOString(), startedAt: new Date(now).toISOString(), finishedAt: null,
      readyAt: now + (options.taskDelayMs ?? 20),
    };
    tasks.push(task);
    return { taskUid: task.uid, indexUid, status: 'enqueued', type, enqueuedAt: task.enqueuedAt };
  };
  const view = (task: StandInTask) => {
    const done = Date.now() >= task.readyAt;
    if (done && !task.finishedAt) task.finishedAt = new Date(task.readyAt).toISOString();
    const status = !done ? 'processing' : task.fails ? 'failed' : 'succeeded';
    const error = status === 'failed' ? { message: 'bad document', code: 'invalid_document_id', type: 'invalid_request', link: '' } : null;
    return { uid: task.uid, indexUid: task.indexUid, status, type: task.type, error, enqueuedAt: task.enqueuedAt, startedAt: task.startedAt, finishedAt: done ? task.finishedAt : null };
  };

  const standIn: StandIn = { baseUrl: '', documentCount: 0, contentTypes: [], searchedQueries: [], settings: [], close: async () => {} };
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    const path = request.url ?? '/';
    const reply = (status: number, payload: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload));
    };
    let match: RegExpExecArray | null;
    if (request.method === 'GET' && path === '/health') return reply(200, { status: 'available' });
    if (request.method === 'POST' && path === '/indexes') return reply(202, enqueue('indexCreation', JSON.parse(body).uid));
    if (request.method === 'PATCH' && (match = /^\/indexes\/([^/]+)\/settings$/.exec(path))) {
      standIn.settings.push(JSON.parse(body));
      return reply(202, enqueue('settingsUpdate', match[1]));
    }
    if (request.method === 'POST' && (match = /^\/indexes\/([^/]+)\/documents$/.exec(path))) {
      const contentType = request.headers['content-type'] ?? '';
      standIn.contentTypes.push(contentType);
      const documents = contentType === 'application/x-ndjson' ? body.trim().split('\n').map((line) => JSON.parse(line)) : JSON.parse(body);
      standIn.documentCount += documents.length;
      return reply(202, enqueue('documentAdditionOrUpdate', match[1], options.failDocuments));
    }
    if (request.method === 'GET' && (match = /^\/tasks\/(\d+)$/.exec(path))) {
      const task = tasks[Number(match[1])];
      return task ? reply(200, view(task)) : reply(404, { code: 'task_not_found' });
    }
    if (request.method === 'GET' && /^\/indexes\/[^/]+\/stats$/.test(path)) return reply(200, { numberOfDocuments: standIn.documentCount });
    const getSearch = request.method === 'GET' && /^\/indexes\/[^/]+\/search\?/.test(path);
    if ((request.method === 'POST' && /^\/indexes\/[^/]+\/search$/.test(path)) || getSearch) {
      const { q } = getSearch ? { q: new URL(path, 'http://x').searchParams.get('q') ?? '' } : JSON.parse(body);
      standIn.searchedQueries.push(q);
      const status = options.searchStatus?.(q) ?? 200;
      if (options.searchDelayMs) await new Promise((resolve) => setTimeout(resolve, options.searchDelayMs));
      return reply(status, status === 200 ? { hits: [], query: q, estimatedTotalHits: options.searchHits?.(q) ?? 0 } : { code: 'internal', message: `failed on ${q}` });
    }
    reply(404, { code: 'not_found', path });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  standIn.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return standIn;
}
