// The minimal uWebSockets.js server every peer (and the fixed-response ceiling) sits behind, so the
// comparison measures the search engines rather than their HTTP layers. Accepts the flags Skein's CLI
// takes (--http-addr; --db-path: where an engine with files keeps them) plus --dataset <DatasetSpec JSON> and
// --settings <JSON>. Searches arrive as POST {q, limit} or, as the real-text windows send them, GET ?q=&limit=.
import uws from '../../src/front/http/uws.js';
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { parseArgs } from 'node:util';
import { createDataset, type Dataset, type DatasetSpec } from '../dataset.js';
import { defaultLimit, parseSearchRequest, shapeSearchResponse } from './response-shape.js';

export interface PeerHits {
  /** Serialized documents, best first, at most `limit`. */
  hits: string[];
  estimatedTotalHits: number;
}

export interface PeerEngine {
  search(q: string, limit: number): PeerHits | Promise<PeerHits>;
  /** Extra load figures for GET /bench/peer (e.g. an on-disk size). */
  figures?(): Record<string, unknown>;
}

export interface PeerContext {
  dataset: Dataset;
  /** documentJson[i] is document i (whose primary key is i) serialized once, for the hits. */
  documentJson: string[];
  /** searchableAttributes of the workload, or the dataset's text fields. */
  searchableAttributes: string[];
  /** --db-path: a directory the peer may create and keep its files in (removed with the run). */
  dbPath: string;
}

export interface PeerLoadFigures {
  documents: number;
  generationSeconds: number;
  indexingSeconds: number;
}

interface PeerArgs {
  port: number;
  spec: DatasetSpec;
  settings: Record<string, unknown>;
  dbPath: string;
}

function readArgs(argv: string[]): PeerArgs {
  const { values } = parseArgs({ args: argv, strict: false, options: { 'http-addr': { type: 'string' }, 'db-path': { type: 'string' }, dataset: { type: 'string' }, settings: { type: 'string' } } });
  const address = String(values['http-addr'] ?? '127.0.0.1:7700');
  if (typeof values.dataset !== 'string') throw new Error('--dataset <DatasetSpec JSON> is required');
  return {
    port: Number(address.slice(address.lastIndexOf(':') + 1)),
    spec: JSON.parse(values.dataset) as DatasetSpec,
    dbPath: String(values['db-path'] ?? ''),
    settings: typeof values.settings === 'string' ? (JSON.parse(values.settings) as Record<string, unknown>) : {},
  };
}

function seconds(fromMs: number): number {
  return Math.round(performance.now() - fromMs) / 1000;
}

/** Builds the engine (timed), then listens; GET /health answers only once the index is built. */
export async function runPeer(name: string, build: (context: PeerContext, documents: readonly Record<string, unknown>[]) => PeerEngine | Promise<PeerEngine>): Promise<void> {
  const args = readArgs(process.argv.slice(2));
  const dataset = createDataset(args.spec);
  const searchable = args.settings.searchableAttributes;
  const searchableAttributes = Array.isArray(searchable) && !searchable.includes('*') ? (searchable as string[]) : ['title', 'overview', 'genre'];

  const generationStart = performance.now();
  const documents: Record<string, unknown>[] = [];
  const documentJson: string[] = [];
  for (let i = 0; i < dataset.spec.documents; i++) {
    documents.push(dataset.documentAt(i));
    documentJson.push(JSON.stringify(documents[i]));
  }
  const generationSeconds = seconds(generationStart);
  const indexingStart = performance.now();
  const engine = await build({ dataset, documentJson, searchableAttributes, dbPath: args.dbPath }, documents);
  const figures: PeerLoadFigures = { documents: documents.length, generationSeconds, indexingSeconds: seconds(indexingStart), ...engine.figures?.() };
  documents.length = 0;
  console.log(`${name}: ${JSON.stringify(figures)}`);

  const app = uws.App();
  app.get('/health', (res) => {
    res.writeHeader('content-type', 'application/json').end('{"status":"available"}');
  });
  app.get('/bench/peer', (res) => {
    res.writeHeader('content-type', 'application/json').end(JSON.stringify({ name, ...figures }));
  });
  app.get('/indexes/:uid/search', (res, req) => {
    const limit = Number(req.getQuery('limit') ?? defaultLimit);
    const q = req.getQuery('q') ?? '';
    if (!Number.isInteger(limit) || limit < 0) {
      res.writeStatus('400 Bad Request').end('{"message":"bad limit","code":"bad_request"}');
      return;
    }
    respond(res, { q, limit }, () => false);
  });
  /** Runs the engine and answers (now, or when an async engine resolves, unless the client left). */
  const respond = (res: HttpResponse, request: { q: string; limit: number }, isAborted: () => boolean) => {
    const started = performance.now();
    let aborted = false;
    const answer = (result: PeerHits) => {
      if (aborted || isAborted()) return;
      const body = shapeSearchResponse(request.q, request.limit, result.hits, result.estimatedTotalHits, performance.now() - started);
      res.cork(() => res.writeHeader('content-type', 'application/json').end(body));
    };
    const fail = (error: Error) => {
      if (!aborted && !isAborted()) res.cork(() => res.writeStatus('500 Internal Server Error').end(JSON.stringify({ message: error.message })));
    };
    try {
      const result = engine.search(request.q, request.limit);
      if (result instanceof Promise) {
        res.onAborted(() => (aborted = true));
        result.then(answer, fail);
      } else answer(result);
    } catch (error) {
      fail(error as Error);
    }
  };
  app.post('/indexes/:uid/search', (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!isLast) return;
      const request = parseSearchRequest(Buffer.concat(chunks).toString());
      if (!request) {
        res.cork(() => res.writeStatus('400 Bad Request').end('{"message":"bad search body","code":"bad_request"}'));
        return;
      }
      const started = performance.now();
      const answer = (result: PeerHits) => {
        if (aborted) return;
        const body = shapeSearchResponse(request.q, request.limit, result.hits, result.estimatedTotalHits, performance.now() - started);
        res.cork(() => res.writeHeader('content-type', 'application/json').end(body));
      };
      const fail = (error: Error) => {
        if (!aborted) res.cork(() => res.writeStatus('500 Internal Server Error').end(JSON.stringify({ message: error.message })));
      };
      try {
        const result = engine.search(request.q, request.limit);
        if (result instanceof Promise) result.then(answer, fail);
        else answer(result);
      } catch (error) {
        fail(error as Error);
      }
    });
  });
  app.listen('127.0.0.1', args.port, (socket) => {
    if (!socket) {
      console.error(`${name}: cannot listen on port ${args.port}`);
      process.exit(1);
    }
    console.log(`${name}: listening on 127.0.0.1:${args.port}`);
  });
  process.on('SIGTERM', () => process.exit(0));
}
