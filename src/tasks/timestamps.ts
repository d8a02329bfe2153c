// Task timestamps. Meilisearch prints RFC 3339 with sub-millisecond digits and durations such as
// `PT0.004503S`; JS Dates only hold milliseconds, so timestamps here are microseconds since the epoch
// (performance.timeOrigin + performance.now(), which has microsecond resolution) kept as strings.
import { performance } from 'node:perf_hooks';

const MICROS_PER_MS = 1000;
const MICROS_PER_SECOND = 1_000_000;
const SECONDS_PER_DAY = 86_400;

/** Now, as an RFC 3339 UTC timestamp with 6 fractional digits: `2024-01-01T00:00:00.123456Z`. */
export function nowRfc3339(): string {
  return formatMicros(Math.floor((performance.timeOrigin + performance.now()) * MICROS_PER_MS));
}

export function formatMicros(micros: number): string {
  const millis = Math.floor(micros / MICROS_PER_MS);
  const subMillis = micros - millis * MICROS_PER_MS;
  const iso = new Date(millis).toISOString(); // 2024-01-01T00:00:00.123Z
  return `${iso.slice(0, 23)}${String(subMillis).padStart(3, '0')}Z`;
}

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Microseconds since the epoch of an RFC 3339 date-time, or null when it is not one. */
export function parseRfc3339Micros(text: string): number | null {
  const match = RFC_3339.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction = '', offset] = match;
  const millis = validUtcMillis(+year, +month, +day, +hour, +minute, +second);
  if (millis === null) return null;
  const fractionMicros = Math.floor(Number(fraction.padEnd(6, '0').slice(0, 6)));
  let offsetMinutes = 0;
  if (offset !== 'Z' && offset !== 'z') {
    const sign = offset.startsWith('-') ? -1 : 1;
    const [hours, minutes] = offset.slice(1).split(':').map(Number);
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = sign * (hours * 60 + minutes);
  }
  return (millis - offsetMinutes * 60_000) * MICROS_PER_MS + fractionMicros;
}

/** Microseconds since the epoch of midnight UTC of a `YYYY-MM-DD` date, or null. */
export function parseDateOnlyMicros(text: string): number | null {
  const match = DATE_ONLY.exec(text);
  if (!match) return null;
  const millis = validUtcMillis(+match[1], +match[2], +match[3], 0, 0, 0);
  return millis === null ? null : millis * MICROS_PER_MS;
}

export const MICROS_PER_DAY = SECONDS_PER_DAY * MICROS_PER_SECOND;

function validUtcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number): number | null {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return null;
  const millis = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59));
  const date = new Date(millis);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return millis;
}

/**
 * The ISO 8601 duration between two timestamps, printed like Meilisearch's `serialize_duration`:
 * `P{days}D` when over a day, then `T{s}S` with 3, 6 or 9 fractional digits as precision needs.
 */
export function isoDuration(startedAt: string, finishedAt: string): string | null {
  const start = parseRfc3339Micros(startedAt);
  const end = parseRfc3339Micros(finishedAt);
  if (start === null || end === null || end < start) return null;
  return formatDurationMicros(end - start);
}

export function formatDurationMicros(totalMicros: number): string {
  const totalSeconds = Math.floor(totalMicros / MICROS_PER_SECOND);
  const days = Math.floor(totalSeconds / SECONDS_PER_DAY);
  const seconds = totalSeconds - days * SECONDS_PER_DAY;
  const micros = totalMicros - totalSeconds * MICROS_PER_SECOND;
  let out = 'P';
  if (days !== 0) out += `${days}D`;
  if (seconds !== 0 || micros !== 0 || days === 0) {
    if (micros === 0) out += `T${seconds}S`;
    else if (micros % 1000 === 0) out += `T${seconds}.${String(micros / 1000).padStart(3, '0')}S`;
    else out += `T${seconds}.${String(micros).padStart(6, '0')}S`;
  }
  return out;
}
