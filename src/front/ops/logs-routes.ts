// Meilisearch's experimental `/logs/*` routes (the `logsRoute` feature, key action metrics.get):
// POST /logs/stream opens a chunked stream of log lines (one listener at a time), DELETE /logs/stream
// ends it, POST /logs/stderr changes the stderr filter. The body is validated first and the feature
// checked after, as Meilisearch does (its body extractor runs before the handler).
import { SkeinError } from '../../errors/index.js';
import { readFeatures } from '../../storage/experimental-features.js';
import { invalidValueType, isPlainObject, unknownField, unknownValue } from '../http/deserr-messages.js';
import type { FrontReply } from '../http/http-types.js';
import { LogFilter } from './log-filter.js';
import { LogStream } from './log-stream.js';
import type { FrontContext, RouteSpec } from '../http/route-spec.js';

const STREAM_FIELDS = ['target', 'mode', 'profileMemory'] as const;
const MODES = ['human', 'json', 'profile'] as const;
type StreamMode = (typeof MODES)[number];

export const logsRoutes: RouteSpec[] = [
  {
    method: 'POST', path: '/logs/stream', action: 'metrics.get', body: 'json',
    handle: (request, context) => openLogStream(request.json, context),
  },
  {
    method: 'DELETE', path: '/logs/stream', action: 'metrics.get', body: 'none',
    handle: (_request, context) => {
      requireLogsRoute(context);
      const sink = context.log.streamSink;
      // Its end frees the route (the stream's onEnd); the response ends as a normal chunked body.
      if (sink instanceof LogStream) sink.end();
      else context.log.closeStream(sink);
      return { status: 204, body: '' };
    },
  },
  {
    method: 'POST', path: '/logs/stderr', action: 'metrics.get', body: 'json',
    handle: (request, context) => {
      const body = objectBody(request.json);
      for (const name of Object.keys(body)) if (name !== 'target') throw unknownField(name, ['target']);
      const filter = targetFilter(body.target);
      requireLogsRoute(context);
      context.log.setStderrFilter(filter);
      return { status: 204, body: '' };
    },
  },
];

function openLogStream(json: unknown, context: FrontContext): FrontReply {
  const body = objectBody(json);
  for (const name of Object.keys(body)) if (!(STREAM_FIELDS as readonly string[]).includes(name)) throw unknownField(name, STREAM_FIELDS);
  const filter = targetFilter(body.target);
  let mode: StreamMode = 'human';
  if (body.mode !== undefined && body.mode !== null) {
    if (typeof body.mode !== 'string') throw invalidValueType('bad_request', '.mode', 'a string', body.mode);
    if (!(MODES as readonly string[]).includes(body.mode)) throw unknownValue('bad_request', '.mode', body.mode, MODES);
    mode = body.mode as StreamMode;
  }
  if (body.profileMemory !== undefined && body.profileMemory !== null && typeof body.profileMemory !== 'boolean') {
    throw invalidValueType('bad_request', '.profileMemory', 'a boolean', body.profileMemory);
  }
  if (body.profileMemory === true && mode !== 'profile') {
    throw new SkeinError('invalid_settings_typo_tolerance',
      `Invalid value: \`profile_memory\` can only be used while profiling code and is not compatible with the ${mode === 'json' ? 'Json' : 'Human'} mode.`);
  }
  requireLogsRoute(context);
  if (mode === 'profile') {
    throw new SkeinError('bad_request', 'The `profile` mode of `/logs/stream` is not supported by this server: use `human` or `json`.');
  }
  const log = context.log;
  const stream = new LogStream(filter, mode, (cut) => {
    log.closeStream(stream);
    if (cut) log.for('meilisearch::http').warn({ bufferBytes: stream.bufferLimit }, 'the /logs/stream reader is too slow: its stream was cut');
  });
  if (!log.openStream(stream)) throw new SkeinError('bad_request', 'The `/logs/stream` route is currently in use by someone else.');
  return {
    status: 200, body: '', contentType: mode === 'json' ? 'application/x-ndjson' : 'text/plain; charset=utf-8',
    open: (out) => {
      // The first chunk ends the response head (uWS sends it with the first chunk): a line saying what streams.
      stream.write(log.directLine(mode, 'info', 'meilisearch::http', 'log stream opened', { filter: typeof body.target === 'string' ? body.target : 'info', mode }));
      stream.attach(out);
    },
  };
}

function objectBody(json: unknown): Record<string, unknown> {
  if (!isPlainObject(json)) throw invalidValueType('bad_request', '', 'an object', json);
  return json;
}

/** `target` (default `info`) as a filter; tracing's parse errors as Meilisearch words them. */
function targetFilter(target: unknown): LogFilter {
  if (target === undefined || target === null) return LogFilter.level('info');
  if (typeof target !== 'string') throw invalidValueType('bad_request', '.target', 'a string', target);
  try {
    return LogFilter.parse(target);
  } catch (cause) {
    throw new SkeinError('bad_request', `Invalid value at \`.target\`: ${(cause as Error).message}`);
  }
}

function requireLogsRoute(context: FrontContext): void {
  if (!readFeatures(context.storage.meta).logsRoute) {
    throw new SkeinError('feature_not_enabled',
      'Modifying logs through the `/logs/*` routes requires enabling the `logs route` experimental feature. See https://github.com/orgs/meilisearch/discussions/721');
  }
}
