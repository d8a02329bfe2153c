// A log target filter as Meilisearch's `/logs/*` routes take it (tracing_subscriber's `Targets`):
// comma-separated directives `target=level`, `level` (every target) or `target` (every level of it).
// A line is kept when the most specific directive whose target prefixes the line's target allows its
// level; a line no directive matches is dropped. Levels: off, error, warn, info, debug, trace, or 0-5.
import { LEVEL_OFF, LEVEL_VALUES, LOG_TARGETS, type LogLevelName, type LogTarget } from '../../protocol/thread-log.js';

export type LogLevelOption = 'off' | LogLevelName;

interface Directive {
  /** null: every target. */
  target: string | null;
  /** Lowest level value kept (LEVEL_OFF: none). */
  threshold: number;
}

export class LogFilter {
  /** Per LOG_TARGETS entry: the lowest level value kept. */
  readonly thresholds: readonly number[];

  private constructor(directives: Directive[]) {
    this.thresholds = LOG_TARGETS.map((target) => thresholdOf(directives, target));
  }

  /** Every target at `level` (`--log-level`). */
  static level(level: LogLevelOption): LogFilter {
    return new LogFilter([{ target: null, threshold: levelThreshold(level) }]);
  }

  /** Throws an Error with tracing's wording (the route prefixes it with the field). */
  static parse(text: string): LogFilter {
    if (text === '') {
      throw new Error('Empty string is not a valid target. If you want to get no logs use `OFF`. Usage: `info`, `meilisearch=info`, or you can write multiple filters in one target: `index_scheduler=info,milli=trace`');
    }
    const directives: Directive[] = [];
    for (const raw of text.split(',')) {
      const part = raw.trim();
      if (part === '') continue;
      const pieces = part.split('=');
      if (pieces.length > 2) throw new Error('invalid filter directive: too many \'=\' in filter directive, expected 0 or 1');
      if (pieces.length === 2) {
        const threshold = parseLevel(pieces[1]!.trim());
        if (threshold === null) throw new Error(LEVEL_EXPECTED);
        directives.push({ target: pieces[0]!.trim() || null, threshold });
        continue;
      }
      // A bare word is a level when it reads as one, else a target at every level.
      const threshold = parseLevel(part);
      directives.push(threshold === null ? { target: part, threshold: LEVEL_VALUES.trace } : { target: null, threshold });
    }
    return new LogFilter(directives);
  }

  threshold(targetIndex: number): number {
    return this.thresholds[targetIndex]!;
  }
}

const LEVEL_EXPECTED = 'invalid filter directive: error parsing level filter: expected one of "off", "error", "warn", "info", "debug", "trace", or a number 0-5';
const NUMBERED: readonly number[] = [LEVEL_OFF, LEVEL_VALUES.error, LEVEL_VALUES.warn, LEVEL_VALUES.info, LEVEL_VALUES.debug, LEVEL_VALUES.trace];

function levelThreshold(level: LogLevelOption): number {
  return level === 'off' ? LEVEL_OFF : LEVEL_VALUES[level];
}

function parseLevel(text: string): number | null {
  const lower = text.toLowerCase();
  if (lower === 'off') return LEVEL_OFF;
  if (lower in LEVEL_VALUES) return LEVEL_VALUES[lower as LogLevelName];
  if (/^[0-5]$/.test(lower)) return NUMBERED[Number(lower)]!;
  return null;
}

function thresholdOf(directives: Directive[], target: LogTarget): number {
  let best: Directive | null = null;
  for (const directive of directives) {
    if (directive.target !== null && !target.startsWith(directive.target)) continue;
    const length = directive.target?.length ?? -1;
    // The most specific wins; among equals the last written.
    if (best === null || length >= (best.target?.length ?? -1)) best = directive;
  }
  return best === null ? LEVEL_OFF : best.threshold;
}
