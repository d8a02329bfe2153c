// Values of the Rhai subset (see README.md here): () is null, INT is a bigint (i64, checked),
// FLOAT a number, strings are JS strings, a char is an RChar, arrays are JS arrays and object maps
// are Maps (insertion order, no prototype keys). Rhai has value semantics: a value stored anywhere
// (let, assignment, argument, literal element, loop item) is a copy (copyValue).

export class RChar {
  constructor(readonly c: string) {}
}

export class RRange {
  constructor(readonly start: bigint, readonly end: bigint, readonly inclusive: boolean) {}
  get last(): bigint {
    return this.inclusive ? this.end : this.end - 1n;
  }
}

/** An anonymous function (`|x| x + 1`) or a named one (`Fn("name")`): parameters, body, captured copies. */
export class FnPtr {
  constructor(readonly name: string, readonly params: readonly string[], readonly body: unknown, readonly captured: ReadonlyMap<string, Value>) {}
}

export type RMap = Map<string, Value>;
export type Value = null | boolean | bigint | number | string | RChar | Value[] | RMap | RRange | FnPtr;

export const I64_MIN = -(2n ** 63n);
export const I64_MAX = 2n ** 63n - 1n;

export function typeName(value: Value): string {
  if (value === null) return '()';
  switch (typeof value) {
    case 'boolean': return 'bool';
    case 'bigint': return 'i64';
    case 'number': return 'f64';
    case 'string': return 'string';
  }
  if (value instanceof RChar) return 'char';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Map) return 'map';
  if (value instanceof RRange) return value.inclusive ? 'range=' : 'range';
  return 'Fn';
}

/** A deep copy; `count` is called once per array or map copied (the caller charges operations). */
export function copyValue(value: Value, count: () => void): Value {
  if (Array.isArray(value)) {
    count();
    return value.map((item) => copyValue(item, count));
  }
  if (value instanceof Map) {
    count();
    const out: RMap = new Map();
    for (const [key, item] of value) out.set(key, copyValue(item, count));
    return out;
  }
  return value;
}

/** Rhai's `==`: values of different types are unequal, except INT and FLOAT compared as numbers. */
export function valuesEqual(a: Value, b: Value): boolean {
  if (typeof a === 'bigint' && typeof b === 'number') return Number(a) === b;
  if (typeof a === 'number' && typeof b === 'bigint') return a === Number(b);
  if (a instanceof RChar) return b instanceof RChar && a.c === b.c;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => valuesEqual(item, b[i]!));
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [key, item] of a) if (!b.has(key) || !valuesEqual(item, b.get(key)!)) return false;
    return true;
  }
  if (a instanceof RRange) return b instanceof RRange && a.start === b.start && a.end === b.end && a.inclusive === b.inclusive;
  return a === b;
}

/** Rhai's Display of a float: 1.0 keeps its `.0`, exponents without `+`. */
export function floatText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return Object.is(value, -0) ? '-0.0' : `${value}.0`;
  return String(value).replace('e+', 'e');
}

/** to_string / interpolation: () is empty, strings as they are, containers in Rhai's debug form. */
export function displayText(value: Value): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (value instanceof RChar) return value.c;
  return debugText(value);
}

function debugText(value: Value): string {
  if (value === null) return '()';
  switch (typeof value) {
    case 'boolean': return String(value);
    case 'bigint': return value.toString();
    case 'number': return floatText(value);
    case 'string': return JSON.stringify(value);
  }
  if (value instanceof RChar) return `'${value.c}'`;
  if (Array.isArray(value)) return `[${value.map(debugText).join(', ')}]`;
  if (value instanceof Map) return `#{${[...value].map(([key, item]) => `${JSON.stringify(key)}: ${debugText(item)}`).join(', ')}}`;
  if (value instanceof RRange) return `${value.start}..${value.inclusive ? '=' : ''}${value.end}`;
  return `Fn(${value.name})`;
}

// ---- JSON in and out ------------------------------------------------------------------------

/**
 * A stored document's JSON text as Rhai values (serde_json -> Dynamic): integers that fit i64 are
 * INT, other numbers FLOAT, null is (), objects are maps in the text's key order. The text is valid
 * JSON (it was stored), so this parser only has to be right, not to diagnose.
 */
export function valueFromJson(text: string): Value {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const parse = (): Value => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const map: RMap = new Map();
      ws();
      if (text[i] === '}') { i++; return map; }
      for (;;) {
        ws();
        const key = parseString();
        ws();
        i++; // ':'
        map.set(key, parse());
        ws();
        if (text[i++] === '}') return map;
      }
    }
    if (c === '[') {
      i++;
      const list: Value[] = [];
      ws();
      if (text[i] === ']') { i++; return list; }
      for (;;) {
        list.push(parse());
        ws();
        if (text[i++] === ']') return list;
      }
    }
    if (c === '"') return parseString();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    const start = i;
    while (i < text.length && /[-+0-9.eE]/.test(text[i]!)) i++;
    const literal = text.slice(start, i);
    if (/^-?(0|[1-9][0-9]*)$/.test(literal)) {
      const int = BigInt(literal);
      if (int >= I64_MIN && int <= I64_MAX) return int;
    }
    return Number(literal);
  };
  const parseString = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  return parse();
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * JSON text of a value as serde_json writes Rhai's Dynamic: INT exact, FLOAT with its `.0`, NaN and
 * infinities as null, object maps with their keys sorted (Rhai's Map is a BTreeMap).
 */
export function jsonText(value: Value): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean': return String(value);
    case 'bigint': return value.toString();
    case 'number': return Number.isFinite(value) ? floatText(value) : 'null';
    case 'string': return JSON.stringify(value);
  }
  if (value instanceof RChar) return JSON.stringify(value.c);
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value instanceof Map) {
    const keys = [...value.keys()].sort(byteOrder);
    return `{${keys.map((key) => `${JSON.stringify(key)}:${jsonText(value.get(key)!)}`).join(',')}}`;
  }
  if (value instanceof RRange) return `{"start":${value.start},"end":${value.end}}`;
  return JSON.stringify(value.name);
}

/**
 * The edited document's text: its fields that were there before keep their place (Meilisearch shows
 * a document's fields by field id), new ones follow sorted; nested maps as jsonText writes them.
 */
export function documentText(document: RMap, originalOrder: readonly string[]): string {
  const parts: string[] = [];
  const seen = new Set<string>();
  for (const key of originalOrder) {
    if (!document.has(key)) continue;
    seen.add(key);
    parts.push(`${JSON.stringify(key)}:${jsonText(document.get(key)!)}`);
  }
  const added = [...document.keys()].filter((key) => !seen.has(key)).sort(byteOrder);
  for (const key of added) parts.push(`${JSON.stringify(key)}:${jsonText(document.get(key)!)}`);
  return `{${parts.join(',')}}`;
}

/** A request's JSON value (the context object, already parsed by the front) as Rhai values. */
export function valueFromParsedJson(value: unknown): Value {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(valueFromParsedJson);
  if (typeof value === 'object') {
    const map: RMap = new Map();
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) map.set(key, valueFromParsedJson(item));
    return map;
  }
  return String(value);
}
