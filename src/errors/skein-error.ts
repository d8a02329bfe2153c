import { ERROR_CODES, type ErrorCode, type ErrorType } from './codes.js';
import { capMessage } from './echo.js';

/** The serialized Meilisearch error body; field order matters to clients that snapshot it. */
export interface ErrorBody {
  message: string;
  code: string;
  type: ErrorType;
  link: string;
}

/**
 * The only error kind Skein raises on purpose. Its HTTP status and type are looked up in
 * ERROR_CODES, never chosen by the raiser, so one code always answers the same way.
 */
export class SkeinError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string) {
    // Capped: a message may quote what the client sent (echo.ts).
    super(capMessage(message));
    this.code = code;
  }

  /**
   * For errors raised by the thousand (refusals past the search queue bound): capturing a stack
   * trace was 5% of the front thread in a refusal storm, and nobody reads these stacks.
   */
  static withoutStack(code: ErrorCode, message: string): SkeinError {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return new SkeinError(code, message);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  get status(): number {
    return ERROR_CODES[this.code][0];
  }

  get type(): ErrorType {
    return ERROR_CODES[this.code][1];
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.message);
  }
}

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { message, code, type: ERROR_CODES[code][1], link: `https://docs.meilisearch.com/errors#${code}` };
}

/** Any thrown value becomes a SkeinError; unexpected ones are `internal` so a bug never leaks a stack. */
export function asSkeinError(cause: unknown): SkeinError {
  if (cause instanceof SkeinError) return cause;
  const message = cause instanceof Error ? cause.message : String(cause);
  return new SkeinError('internal', message);
}

/** Errors crossing threads travel as bodies; this rebuilds the value on the receiving side. */
export function fromBody(body: ErrorBody): SkeinError {
  const code = (Object.hasOwn(ERROR_CODES, body.code) ? body.code : 'internal') as ErrorCode;
  return new SkeinError(code, body.message);
}
