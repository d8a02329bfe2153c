// Error messages quote what the client sent (a value, a name, a filter), and a client controls how
// long that is: a 95 MiB string once came back as a 99.6 MB error body. Every quotation goes through
// these helpers, and every message, whatever it quotes, is capped when a SkeinError is made.

/** Characters of a client's value an error message quotes before cutting it with an ellipsis. */
export const ECHO_MAX_CHARS = 128;
/** Characters of a whole error message (quotations, lists of attribute names, a filter's source...). */
export const ERROR_MESSAGE_MAX_CHARS = 4096;
const ELLIPSIS = '…';

/** `text` cut to `max` characters (never inside a surrogate pair), an ellipsis marking the cut. */
export function truncateText(text: string, max = ECHO_MAX_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end) + ELLIPSIS;
}

/** A client's string as an error message quotes it. */
export function echo(text: string): string {
  return truncateText(text);
}

/**
 * The JSON text of a client's value as an error message quotes it, written only up to the cut: a
 * huge or deeply nested value costs no more than the quotation (JSON.stringify would serialize all of
 * it first, and overflow the stack on deep nesting).
 */
export function echoJson(value: unknown, max = ECHO_MAX_CHARS): string {
  const out: string[] = [];
  let length = 0;
  const push = (part: string): boolean => {
    out.push(part);
    length += part.length;
    return length <= max;
  };
  const write = (item: unknown): boolean => {
    if (item === null || item === undefined || typeof item === 'function') return push('null');
    if (typeof item === 'string') return push(JSON.stringify(item.length > max ? item.slice(0, max + 1) : item));
    if (typeof item !== 'object') return push(JSON.stringify(item) ?? 'null');
    if (Array.isArray(item)) {
      if (!push('[')) return false;
      for (let k = 0; k < item.length; k++) {
        if (k > 0 && !push(',')) return false;
        if (!write(item[k])) return false;
      }
      return push(']');
    }
    const proto = Object.getPrototypeOf(item);
    // A value kept as its own text (documents/exact-json.ts's JsonNumberText): its text is its JSON.
    if (proto !== Object.prototype && proto !== null) return push(String(item));
    if (!push('{')) return false;
    let first = true;
    for (const key in item) {
      if (!Object.prototype.hasOwnProperty.call(item, key)) continue;
      if (!first && !push(',')) return false;
      first = false;
      if (!push(`${JSON.stringify(key.length > max ? key.slice(0, max + 1) : key)}:`)) return false;
      if (!write((item as Record<string, unknown>)[key])) return false;
    }
    return push('}');
  };
  write(value);
  return truncateText(out.join(''), max);
}

/** The whole message, capped (the net under every quotation). */
export function capMessage(message: string): string {
  return truncateText(message, ERROR_MESSAGE_MAX_CHARS);
}
