// The human log format: one line per record, in the spirit of Meilisearch's (tracing's fmt):
//   2026-05-01T19:40:00.123Z  INFO meilisearch::http: request method=GET route=/indexes/{indexUid}/search status=200 durationMs=0.41
// Built from the record's fields (pino's metadata), not by parsing the JSON line again. An error's
// stack follows on indented lines.

const LABELS: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: ' INFO', 40: ' WARN', 50: 'ERROR', 60: 'FATAL' };
/** Printed bare when made of these; else JSON-quoted. */
const BARE = /^[\w./:{}\-@+*]+$/;

export function formatHuman(level: number, target: string, msg: string | undefined, fields: object, time = new Date().toISOString()): string {
  let line = `${time} ${LABELS[level] ?? String(level)} ${target}: ${msg ?? ''}`;
  let stack = '';
  for (const key in fields) {
    const value = (fields as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (key === 'err' && typeof value === 'object' && value !== null) {
      const error = value as { message?: unknown; stack?: unknown };
      line += ` err=${quote(String(error.message ?? ''))}`;
      if (typeof error.stack === 'string') stack = error.stack;
      continue;
    }
    line += ` ${key}=${typeof value === 'string' ? quote(value) : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`;
  }
  if (stack !== '') line += `\n    ${stack.split('\n').join('\n    ')}`;
  return line + '\n';
}

function quote(text: string): string {
  return BARE.test(text) ? text : JSON.stringify(text);
}
