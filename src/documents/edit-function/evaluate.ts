// The evaluator of the Rhai subset: runs a parsed Program against one document. Every step counts
// against an operations budget (Meilisearch's set_max_operations(1_000_000)), work proportional to a
// value's size (copies, string building, sorts, searches) is charged by size, and the sizes a script
// can produce are bounded (RhaiLimits), so a hostile script ends in a RhaiRuntimeError, never a hang.
// Runs on the scheduler thread, inside the planning of a documentEdition task.
import type { Expr, FnDef, Pos, Program, Stmt } from './parse.js';
import {
  copyValue, displayText, floatText, FnPtr, I64_MAX, I64_MIN, jsonText, RChar, RRange, typeName, valuesEqual,
  type RMap, type Value,
} from './values.js';

export interface RhaiLimits {
  /** Operations per document. */
  maxOperations: number;
  /** Characters of one string. */
  maxStringChars: number;
  /** Elements of one array; entries of one map. */
  maxArrayItems: number;
  maxMapEntries: number;
  /** Variables alive at once. */
  maxVariables: number;
  /** Nested function calls. */
  maxCallDepth: number;
}

/**
 * Meilisearch's engine limits (update_by_function.rs), except two this server lowers: strings (1 GiB
 * there) and call depth (1000 there: here each level costs JavaScript stack frames).
 */
export const DEFAULT_RHAI_LIMITS: RhaiLimits = {
  maxOperations: 1_000_000, maxStringChars: 4 * 1024 * 1024, maxArrayItems: 10_000, maxMapEntries: 10_000,
  maxVariables: 1000, maxCallDepth: 64,
};

/** Characters of produced text charged as one operation. */
const CHARS_PER_OPERATION = 64;

/** Rhai's EvalAltResult display: `<message> (line L, position P)`. */
export class RhaiRuntimeError extends Error {
  constructor(readonly reason: string, readonly pos: Pos | null) {
    super(pos ? `${reason} (line ${pos.line}, position ${pos.col})` : reason);
  }
}

class BreakSignal { constructor(readonly pos: Pos) {} }
class ContinueSignal { constructor(readonly pos: Pos) {} }
class ReturnSignal { constructor(readonly value: Value) {} }

interface Closure { params: readonly string[]; body: Stmt[] }

export class Evaluation {
  private operations = 0;
  private names: string[] = [];
  private values: Value[] = [];
  private constants: boolean[] = [];
  private callDepth = 0;
  /** The position of the node being evaluated, for errors raised inside built-in functions. */
  private at: Pos | null = null;

  constructor(private readonly program: Program, private readonly limits: RhaiLimits) {}

  define(name: string, value: Value, constant: boolean): void {
    if (this.names.length >= this.limits.maxVariables) throw this.fail('Too many variables defined');
    this.names.push(name);
    this.values.push(value);
    this.constants.push(constant);
  }

  variable(name: string): Value | undefined {
    const slot = this.names.lastIndexOf(name);
    return slot < 0 ? undefined : this.values[slot];
  }

  run(): void {
    try {
      this.statements(this.program.body, false);
    } catch (signal) {
      if (signal instanceof ReturnSignal) return;
      if (signal instanceof BreakSignal) throw new RhaiRuntimeError("'break' must be within a loop", signal.pos);
      if (signal instanceof ContinueSignal) throw new RhaiRuntimeError("'continue' must be within a loop", signal.pos);
      if (signal instanceof RangeError) throw new RhaiRuntimeError('Stack overflow', this.at);
      throw signal;
    }
  }

  // ---- bookkeeping ----

  private tick(pos: Pos, count = 1): void {
    this.at = pos;
    this.operations += count;
    if (this.operations > this.limits.maxOperations) throw new RhaiRuntimeError('Too many operations', pos);
  }

  private charge(count: number): void {
    this.operations += count;
    if (this.operations > this.limits.maxOperations) throw this.fail('Too many operations');
  }

  private fail(reason: string): RhaiRuntimeError {
    return new RhaiRuntimeError(reason, this.at);
  }

  private copy(value: Value): Value {
    return copyValue(value, () => this.charge(1));
  }

  /** A produced string: charged by length, bounded. */
  private text(value: string): string {
    if (value.length > this.limits.maxStringChars) throw this.fail('Length of string too large');
    this.charge(Math.floor(value.length / CHARS_PER_OPERATION));
    return value;
  }

  private checkSize(value: Value): Value {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value) && value.length > this.limits.maxArrayItems) throw this.fail('Size of array/BLOB too large');
    if (value instanceof Map && value.size > this.limits.maxMapEntries) throw this.fail('Size of object map too large');
    return value;
  }

  // ---- statements ----

  private statements(body: Stmt[], scoped = true): Value {
    const mark = this.names.length;
    let last: Value = null;
    try {
      for (const stmt of body) last = this.statement(stmt);
    } finally {
      if (scoped) this.truncate(mark);
    }
    return last;
  }

  private truncate(mark: number): void {
    this.names.length = mark;
    this.values.length = mark;
    this.constants.length = mark;
  }

  private statement(stmt: Stmt): Value {
    this.tick(stmt.pos);
    switch (stmt.t) {
      case 'expr': return this.expr(stmt.expr);
      case 'let':
        this.define(stmt.name, stmt.init ? this.copy(this.expr(stmt.init)) : null, stmt.constant);
        return null;
      case 'assign': {
        const right = this.expr(stmt.value);
        const value = stmt.op === '=' ? this.copy(right) : this.binary(stmt.op.slice(0, -1), this.expr(stmt.target), right, stmt.pos);
        this.assign(stmt.target, this.checkSize(value));
        return null;
      }
      case 'while':
        for (;;) {
          if (stmt.cond && !this.condition(stmt.cond)) return null;
          if (this.loopBody(stmt.body) === 'break') return null;
          this.tick(stmt.pos);
        }
      case 'do':
        for (;;) {
          if (this.loopBody(stmt.body) === 'break') return null;
          if (this.condition(stmt.cond) === stmt.until) return null;
          this.tick(stmt.pos);
        }
      case 'for': {
        const source = this.expr(stmt.source);
        let index = 0n;
        for (const item of this.iterate(source)) {
          const mark = this.names.length;
          this.define(stmt.name, this.copy(item), false);
          if (stmt.counter !== null) this.define(stmt.counter, index, false);
          index++;
          let outcome;
          try {
            outcome = this.loopBody(stmt.body);
          } finally {
            this.truncate(mark);
          }
          if (outcome === 'break') return null;
          this.tick(stmt.pos);
        }
        return null;
      }
      case 'break': throw new BreakSignal(stmt.pos);
      case 'continue': throw new ContinueSignal(stmt.pos);
      case 'return': throw new ReturnSignal(stmt.value ? this.expr(stmt.value) : null);
      case 'throw': {
        const value = stmt.value ? this.expr(stmt.value) : null;
        throw new RhaiRuntimeError(value === null ? 'Runtime error' : `Runtime error: ${displayText(value)}`, stmt.pos);
      }
    }
  }

  private loopBody(body: Stmt[]): 'break' | 'next' {
    try {
      this.statements(body);
    } catch (signal) {
      if (signal instanceof BreakSignal) return 'break';
      if (signal instanceof ContinueSignal) return 'next';
      throw signal;
    }
    return 'next';
  }

  private condition(expr: Expr): boolean {
    const value = this.expr(expr);
    if (typeof value !== 'boolean') throw new RhaiRuntimeError(`Data type incorrect: ${typeName(value)} (expecting bool)`, expr.pos);
    return value;
  }

  private *iterate(source: Value): Generator<Value> {
    if (Array.isArray(source)) {
      // Over a snapshot: the body may change the array.
      this.charge(source.length);
      for (const item of [...source]) yield item;
    } else if (source instanceof RRange) {
      for (let i = source.start; i <= source.last; i++) yield i;
    } else if (typeof source === 'string') {
      for (const c of source) yield new RChar(c);
    } else if (source instanceof Map) {
      throw this.fail('For loop expects iterable type');
    } else throw this.fail('For loop expects iterable type');
  }

  // ---- places ----

  private rootOf(expr: Expr): Extract<Expr, { t: 'var' }> {
    let node = expr;
    while (node.t === 'prop' || node.t === 'index' || node.t === 'method') node = node.target;
    return node as Extract<Expr, { t: 'var' }>;
  }

  private checkMutable(target: Expr, what: string): void {
    const root = this.rootOf(target);
    if (root.t !== 'var') return;
    const slot = this.names.lastIndexOf(root.name);
    if (slot >= 0 && this.constants[slot]) throw new RhaiRuntimeError(`${what}${root.name}`, root.pos);
  }

  /** Stores `value` (already a copy) at a place: a variable, a map property, an array/map/string index. */
  private assign(target: Expr, value: Value): void {
    this.checkMutable(target, 'Cannot modify constant ');
    switch (target.t) {
      case 'var': {
        const slot = this.names.lastIndexOf(target.name);
        if (slot < 0) throw new RhaiRuntimeError(`Variable not found: ${target.name}`, target.pos);
        this.values[slot] = value;
        return;
      }
      case 'prop': {
        const container = this.expr(target.target);
        if (!(container instanceof Map)) throw new RhaiRuntimeError(`Property not found: ${target.name}`, target.pos);
        container.set(target.name, value);
        this.checkSize(container);
        return;
      }
      case 'index': {
        const container = this.expr(target.target);
        const index = this.expr(target.index);
        if (Array.isArray(container)) {
          container[this.arrayIndex(container, index, target.pos)] = value;
        } else if (container instanceof Map) {
          if (typeof index !== 'string' && !(index instanceof RChar)) throw new RhaiRuntimeError(`Indexer unavailable: ${typeName(index)}`, target.pos);
          container.set(displayText(index), value);
          this.checkSize(container);
        } else if (typeof container === 'string') {
          if (!(value instanceof RChar)) throw new RhaiRuntimeError(`Data type incorrect: ${typeName(value)} (expecting char)`, target.pos);
          const chars = [...container];
          chars[this.stringIndex(chars, index, target.pos)] = value.c;
          this.assign(target.target, this.text(chars.join('')));
        } else throw new RhaiRuntimeError(`Indexer unavailable: ${typeName(container)}`, target.pos);
        return;
      }
      default:
        throw new RhaiRuntimeError('Expression cannot be assigned to', target.pos);
    }
  }

  private arrayIndex(array: Value[], index: Value, pos: Pos): number {
    return elementIndex(array.length, index, pos, 'Array', 'array', 'element');
  }

  private stringIndex(chars: string[], index: Value, pos: Pos): number {
    return elementIndex(chars.length, index, pos, 'String', 'string', 'character');
  }

  // ---- expressions ----

  expr(expr: Expr): Value {
    this.tick(expr.pos);
    switch (expr.t) {
      case 'lit': return expr.value;
      case 'char': return new RChar(expr.value);
      case 'tmpl': {
        let out = '';
        for (const part of expr.parts) {
          out += typeof part === 'string' ? part : displayText(this.expr(part));
          if (out.length > this.limits.maxStringChars) throw this.fail('Length of string too large');
        }
        return this.text(out);
      }
      case 'var': {
        const slot = this.names.lastIndexOf(expr.name);
        if (slot < 0) {
          if (this.program.functions.has(`${expr.name}/0`) || [...this.program.functions.values()].some((fn) => fn.name === expr.name)) {
            return new FnPtr(expr.name, [], null, new Map());
          }
          throw new RhaiRuntimeError(`Variable not found: ${expr.name}`, expr.pos);
        }
        return this.values[slot]!;
      }
      case 'array': {
        const items = expr.items.map((item) => this.copy(this.expr(item)));
        return this.checkSize(items);
      }
      case 'map': {
        const map: RMap = new Map();
        for (const [key, item] of expr.entries) map.set(key, this.copy(this.expr(item)));
        return this.checkSize(map);
      }
      case 'prop': {
        const target = this.expr(expr.target);
        if (target === null && expr.safe) return null;
        return this.property(target, expr.name, expr.pos);
      }
      case 'index': {
        const target = this.expr(expr.target);
        if (target === null && expr.safe) return null;
        return this.index(target, this.expr(expr.index), expr.pos);
      }
      case 'method': return this.methodCall(expr);
      case 'call': return this.functionCall(expr);
      case 'unary': {
        const value = this.expr(expr.operand);
        if (expr.op === '!') {
          if (typeof value !== 'boolean') throw new RhaiRuntimeError(`Function not found: ! (${typeName(value)})`, expr.pos);
          return !value;
        }
        if (typeof value === 'bigint') return expr.op === '-' ? this.int(-value, expr.pos, `Negation overflow: -${value}`) : value;
        if (typeof value === 'number') return expr.op === '-' ? -value : value;
        throw new RhaiRuntimeError(`Function not found: ${expr.op} (${typeName(value)})`, expr.pos);
      }
      case 'binary': {
        if (expr.op === '&&' || expr.op === '||') {
          const left = this.expr(expr.left);
          if (typeof left !== 'boolean') throw new RhaiRuntimeError(`Data type incorrect: ${typeName(left)} (expecting bool)`, expr.left.pos);
          if (expr.op === '&&' ? !left : left) return left;
          const right = this.expr(expr.right);
          if (typeof right !== 'boolean') throw new RhaiRuntimeError(`Data type incorrect: ${typeName(right)} (expecting bool)`, expr.right.pos);
          return right;
        }
        if (expr.op === '??') {
          const left = this.expr(expr.left);
          return left !== null ? left : this.expr(expr.right);
        }
        return this.binary(expr.op, this.expr(expr.left), this.expr(expr.right), expr.pos);
      }
      case 'if': {
        if (this.condition(expr.cond)) return this.statements(expr.then);
        return expr.otherwise ? this.statements(expr.otherwise) : null;
      }
      case 'block': return this.statements(expr.body);
      case 'closure': {
        // Captures copies of the outer variables the body names (Rhai shares them; reading is alike).
        const captured = new Map<string, Value>();
        for (const name of expr.captures) {
          const value = this.variable(name);
          if (value !== undefined) captured.set(name, this.copy(value));
        }
        return new FnPtr('anonymous', expr.params, expr.body, captured);
      }
    }
  }

  private int(value: bigint, pos: Pos, overflow: string): bigint {
    if (value < I64_MIN || value > I64_MAX) throw new RhaiRuntimeError(overflow, pos);
    return value;
  }

  private property(target: Value, name: string, pos: Pos): Value {
    if (target instanceof Map) return target.has(name) ? target.get(name)! : null;
    if ((typeof target === 'string' || Array.isArray(target)) && (name === 'len' || name === 'is_empty')) {
      const length = typeof target === 'string' ? characterCount(target) : target.length;
      return name === 'len' ? BigInt(length) : length === 0;
    }
    if (target instanceof RRange && (name === 'start' || name === 'end')) return name === 'start' ? target.start : target.end;
    throw new RhaiRuntimeError(`Property not found: ${name}`, pos);
  }

  private index(target: Value, index: Value, pos: Pos): Value {
    if (Array.isArray(target)) return target[this.arrayIndex(target, index, pos)]!;
    if (target instanceof Map) {
      if (typeof index !== 'string' && !(index instanceof RChar)) throw new RhaiRuntimeError(`Indexer unavailable: ${typeName(index)}`, pos);
      const key = displayText(index);
      return target.has(key) ? target.get(key)! : null;
    }
    if (typeof target === 'string') {
      this.charge(Math.floor(target.length / 4));
      const chars = [...target];
      return new RChar(chars[this.stringIndex(chars, index, pos)]!);
    }
    if (typeof target === 'bigint' && typeof index === 'bigint') {
      if (index < 0n || index > 63n) throw new RhaiRuntimeError(`Bit-field index ${index} out of bounds: only 64 bits in a bit-field`, pos);
      return ((BigInt.asUintN(64, target) >> index) & 1n) === 1n;
    }
    throw new RhaiRuntimeError(`Indexer unavailable: ${typeName(target)}`, pos);
  }

  binary(op: string, left: Value, right: Value, pos: Pos): Value {
    const notFound = () => new RhaiRuntimeError(`Function not found: ${op} (${typeName(left)}, ${typeName(right)})`, pos);
    switch (op) {
      case '==': this.charge(sizeOf(left)); return valuesEqual(left, right);
      case '!=': this.charge(sizeOf(left)); return !valuesEqual(left, right);
      case 'in': case '!in': {
        const found = this.contains(right, left, pos);
        return op === 'in' ? found : !found;
      }
      case '..': case '..=':
        if (typeof left !== 'bigint' || typeof right !== 'bigint') throw notFound();
        return new RRange(left, right, op === '..=');
    }
    if (typeof left === 'bigint' && typeof right === 'bigint') return this.intOp(op, left, right, pos) ?? (() => { throw notFound(); })();
    if ((typeof left === 'bigint' || typeof left === 'number') && (typeof right === 'bigint' || typeof right === 'number')) {
      const a = Number(left);
      const b = Number(right);
      switch (op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return a / b;
        case '%': return a % b;
        case '**': return a ** b;
        case '<': return a < b;
        case '<=': return a <= b;
        case '>': return a > b;
        case '>=': return a >= b;
      }
      throw notFound();
    }
    if (op === '+') {
      if (typeof left === 'string' || left instanceof RChar || typeof right === 'string' || right instanceof RChar) {
        if ((typeof left === 'string' || left instanceof RChar || left === null || !isContainer(left))
          && (typeof right === 'string' || right instanceof RChar || right === null || !isContainer(right))) {
          const a = displayText(left);
          const b = displayText(right);
          if (a.length + b.length > this.limits.maxStringChars) throw this.fail('Length of string too large');
          return this.text(a + b);
        }
        if (typeof left === 'string' && isContainer(right)) return this.text(left + displayText(right));
      }
      if (Array.isArray(left) && Array.isArray(right)) {
        this.charge(left.length + right.length);
        return this.checkSize([...left, ...right.map((item) => this.copy(item))]);
      }
      if (Array.isArray(left)) return this.checkSize([...left, this.copy(right)]);
      if (left instanceof Map && right instanceof Map) {
        this.charge(left.size + right.size);
        const out: RMap = new Map(left);
        for (const [key, item] of right) out.set(key, this.copy(item));
        return this.checkSize(out);
      }
    }
    if (op === '-' && left instanceof Map) throw notFound();
    if ((typeof left === 'string' || left instanceof RChar) && (typeof right === 'string' || right instanceof RChar)) {
      const a = displayText(left);
      const b = displayText(right);
      switch (op) {
        case '<': return a < b;
        case '<=': return a <= b;
        case '>': return a > b;
        case '>=': return a >= b;
      }
    }
    if (typeof left === 'boolean' && typeof right === 'boolean') {
      switch (op) {
        case '&': return left && right;
        case '|': return left || right;
        case '^': return left !== right;
      }
    }
    throw notFound();
  }

  private intOp(op: string, a: bigint, b: bigint, pos: Pos): Value | undefined {
    switch (op) {
      case '+': return this.int(a + b, pos, `Addition overflow: ${a} + ${b}`);
      case '-': return this.int(a - b, pos, `Subtraction overflow: ${a} - ${b}`);
      case '*': return this.int(a * b, pos, `Multiplication overflow: ${a} * ${b}`);
      case '/':
        if (b === 0n) throw new RhaiRuntimeError(`Division by zero: ${a} / ${b}`, pos);
        return this.int(a / b, pos, `Division overflow: ${a} / ${b}`);
      case '%':
        if (b === 0n) throw new RhaiRuntimeError(`Modulo division by zero: ${a} % ${b}`, pos);
        return a % b;
      case '**':
        if (b < 0n) throw new RhaiRuntimeError(`Negative power: ${a} ** ${b}`, pos);
        if (b > 64n && a !== 0n && a !== 1n && a !== -1n) throw new RhaiRuntimeError(`Exponential overflow: ${a} ** ${b}`, pos);
        return this.int(a ** b, pos, `Exponential overflow: ${a} ** ${b}`);
      case '<<': case '>>': {
        if (b < 0n || b > 63n) throw new RhaiRuntimeError(`Shift overflow: ${a} ${op} ${b}`, pos);
        return op === '<<' ? BigInt.asIntN(64, a << b) : a >> b;
      }
      case '&': return a & b;
      case '|': return a | b;
      case '^': return a ^ b;
      case '<': return a < b;
      case '<=': return a <= b;
      case '>': return a > b;
      case '>=': return a >= b;
    }
    return undefined;
  }

  private contains(container: Value, item: Value, pos: Pos): boolean {
    if (Array.isArray(container)) {
      this.charge(container.length);
      return container.some((element) => valuesEqual(element, item));
    }
    if (container instanceof Map) {
      if (typeof item !== 'string' && !(item instanceof RChar)) throw new RhaiRuntimeError(`Function not found: in (${typeName(item)}, map)`, pos);
      return container.has(displayText(item));
    }
    if (typeof container === 'string') {
      if (typeof item !== 'string' && !(item instanceof RChar)) throw new RhaiRuntimeError(`Function not found: in (${typeName(item)}, string)`, pos);
      this.charge(Math.floor(container.length / CHARS_PER_OPERATION));
      return container.includes(displayText(item));
    }
    if (container instanceof RRange) {
      return typeof item === 'bigint' && item >= container.start && item <= container.last;
    }
    throw new RhaiRuntimeError(`Function not found: in (${typeName(item)}, ${typeName(container)})`, pos);
  }

  // ---- calls ----

  private methodCall(expr: Extract<Expr, { t: 'method' }>): Value {
    const receiver = this.expr(expr.target);
    if (receiver === null && expr.safe) return null;
    const args = expr.args.map((arg) => this.expr(arg));
    // A script function called method-style gets the receiver as `this`.
    const own = this.program.functions.get(`${expr.name}/${args.length}`);
    if (own) return this.callScript(own.params, own.body, args, receiver, new Map(), expr.pos);
    if (receiver instanceof FnPtr && expr.name === 'call') return this.callPointer(receiver, args, expr.pos);
    const mutating = MUTATING.has(expr.name) && (typeof receiver === 'string' || Array.isArray(receiver) || receiver instanceof Map);
    const place = isPlaceExpr(expr.target);
    if (mutating && place) this.checkMutable(expr.target, `Non-pure method '${expr.name}' cannot be called on constant `);
    // On a temporary, a mutating method works on a copy (the temporary may be another value's part).
    const target = mutating && !place && typeof receiver !== 'string' ? this.copy(receiver) : receiver;
    const outcome = this.builtin(expr.name, target, args, expr.pos);
    if (mutating && typeof receiver === 'string' && place && outcome.updated !== undefined) this.assign(expr.target, outcome.updated);
    if (mutating && receiver !== null && typeof receiver !== 'string' && place) this.checkSize(receiver);
    return outcome.result;
  }

  private functionCall(expr: Extract<Expr, { t: 'call' }>): Value {
    const args = expr.args.map((arg) => this.expr(arg));
    const own = this.program.functions.get(`${expr.name}/${args.length}`);
    if (own) return this.callScript(own.params, own.body, args, null, new Map(), expr.pos);
    const pointer = this.variable(expr.name);
    if (pointer instanceof FnPtr) return this.callPointer(pointer, args, expr.pos);
    switch (expr.name) {
      case 'print': case 'debug': return null;
      case 'type_of': if (args.length === 1) return typeName(args[0]!); break;
      case 'parse_int': case 'parse_float': {
        const text = args[0];
        if (args.length === 1 && typeof text === 'string') {
          if (expr.name === 'parse_int') {
            const trimmed = text.trim();
            if (!/^[-+]?[0-9]+$/.test(trimmed)) throw new RhaiRuntimeError(`Error parsing integer number '${text}': invalid digit found in string`, expr.pos);
            return this.int(BigInt(trimmed), expr.pos, `Error parsing integer number '${text}': number too large to fit in target type`);
          }
          const value = Number(text.trim());
          if (text.trim() === '' || Number.isNaN(value)) throw new RhaiRuntimeError(`Error parsing floating-point number '${text}': invalid float literal`, expr.pos);
          return value;
        }
        break;
      }
      case 'range':
        if (args.length === 2 && typeof args[0] === 'bigint' && typeof args[1] === 'bigint') return new RRange(args[0], args[1], false);
        break;
      case 'Fn':
        if (args.length === 1 && typeof args[0] === 'string') return new FnPtr(args[0], [], null, new Map());
        break;
    }
    // Function-call style of a method: the first argument is the receiver, passed by value.
    if (args.length > 0) return this.builtin(expr.name, this.copy(args[0]!), args.slice(1), expr.pos).result;
    throw new RhaiRuntimeError(`Function not found: ${expr.name} ()`, expr.pos);
  }

  private callPointer(pointer: FnPtr, args: Value[], pos: Pos): Value {
    if (pointer.body !== null) {
      const closure = { params: pointer.params, body: pointer.body as Stmt[] };
      return this.callScript(closure.params, closure.body, args, null, pointer.captured, pos);
    }
    const own = this.program.functions.get(`${pointer.name}/${args.length}`);
    if (own) return this.callScript(own.params, own.body, args, null, new Map(), pos);
    if (args.length > 0) return this.builtin(pointer.name, this.copy(args[0]!), args.slice(1), pos).result;
    throw new RhaiRuntimeError(`Function not found: ${pointer.name} ()`, pos);
  }

  /** A script function or closure: a scope of its own (parameters, captured copies, `this`). */
  private callScript(params: readonly string[], body: Stmt[], args: Value[], self: Value | null, captured: ReadonlyMap<string, Value>, pos: Pos): Value {
    if (args.length !== params.length) {
      throw new RhaiRuntimeError(`Function not found: anonymous (${args.map(typeName).join(', ')})`, pos);
    }
    if (++this.callDepth > this.limits.maxCallDepth) throw new RhaiRuntimeError('Stack overflow', pos);
    const saved = { names: this.names, values: this.values, constants: this.constants };
    this.names = [];
    this.values = [];
    this.constants = [];
    try {
      for (const [name, value] of captured) this.define(name, this.copy(value), false);
      if (self !== null) this.define('this', self, false);
      params.forEach((name, i) => this.define(name, this.copy(args[i]!), false));
      return this.statements(body, false);
    } catch (signal) {
      if (signal instanceof ReturnSignal) return signal.value;
      if (signal instanceof BreakSignal || signal instanceof ContinueSignal) throw new RhaiRuntimeError("'break' must be within a loop", signal.pos);
      throw signal;
    } finally {
      this.names = saved.names;
      this.values = saved.values;
      this.constants = saved.constants;
      this.callDepth--;
    }
  }

  /** Built-in methods by receiver type. `updated`: a string method's new value of its receiver. */
  private builtin(name: string, self: Value, args: Value[], pos: Pos): { result: Value; updated?: string } {
    this.at = pos;
    const notFound = () => new RhaiRuntimeError(`Function not found: ${name} (${[self, ...args].map(typeName).join(', ')})`, pos);
    const arg = (i: number) => args[i]!;
    const intArg = (i: number): bigint => {
      const value = args[i];
      if (typeof value !== 'bigint') throw notFound();
      return value;
    };
    const fnArg = (i: number): FnPtr => {
      const value = args[i];
      if (!(value instanceof FnPtr)) throw notFound();
      return value;
    };
    const textArg = (i: number): string => {
      const value = args[i];
      if (typeof value === 'string') return value;
      if (value instanceof RChar) return value.c;
      throw notFound();
    };
    if (name === 'to_string' && args.length === 0) return { result: this.text(displayText(self)) };
    if (name === 'to_debug' && args.length === 0) return { result: this.text(typeof self === 'string' ? JSON.stringify(self) : displayText(self)) };
    if (name === 'to_json' && args.length === 0 && self instanceof Map) return { result: this.text(jsonText(self)) };

    if (typeof self === 'string') {
      this.charge(Math.floor(self.length / CHARS_PER_OPERATION));
      // Splitting into characters costs far more than scanning: charged apart.
      const chars = () => {
        this.charge(Math.floor(self.length / 4));
        return [...self];
      };
      const done = (updated: string) => ({ result: null, updated: this.text(updated) });
      switch (`${name}/${args.length}`) {
        case 'len/0': return { result: BigInt(characterCount(self)) };
        case 'is_empty/0': return { result: self.length === 0 };
        case 'bytes/0': return { result: BigInt(Buffer.byteLength(self)) };
        case 'to_upper/0': return { result: this.text(self.toUpperCase()) };
        case 'to_lower/0': return { result: this.text(self.toLowerCase()) };
        case 'make_upper/0': return done(self.toUpperCase());
        case 'make_lower/0': return done(self.toLowerCase());
        case 'trim/0': return done(self.trim());
        case 'clear/0': return done('');
        case 'contains/1': return { result: self.includes(textArg(0)) };
        case 'starts_with/1': return { result: self.startsWith(textArg(0)) };
        case 'ends_with/1': return { result: self.endsWith(textArg(0)) };
        case 'index_of/1': case 'index_of/2': {
          const all = chars();
          let start = args.length === 2 ? Number(intArg(1)) : 0;
          if (start < 0) start = Math.max(0, all.length + start);
          const at = all.slice(start).join('').indexOf(textArg(0));
          return { result: at < 0 ? -1n : BigInt(start + [...all.slice(start).join('').slice(0, at)].length) };
        }
        case 'sub_string/1': case 'sub_string/2': {
          const all = chars();
          if (args.length === 1 && arg(0) instanceof RRange) {
            const range = arg(0) as RRange;
            return { result: all.slice(clampIndex(range.start, all.length), clampIndex(range.last + 1n, all.length)).join('') };
          }
          let start = intArg(0);
          if (start < 0n) start = BigInt(Math.max(0, all.length + Number(start)));
          const from = clampIndex(start, all.length);
          const length = args.length === 2 ? intArg(1) : BigInt(all.length);
          if (length <= 0n) return { result: '' };
          return { result: all.slice(from, from + Number(length > BigInt(all.length) ? BigInt(all.length) : length)).join('') };
        }
        case 'split/0': return { result: this.checkSize(self.trim().split(/\s+/, this.limits.maxArrayItems + 1).filter((part) => part !== '')) };
        case 'split/1': {
          if (typeof arg(0) === 'bigint') {
            const all = chars();
            const at = clampIndex(intArg(0) < 0n ? BigInt(Math.max(0, all.length + Number(intArg(0)))) : intArg(0), all.length);
            return { result: [all.slice(0, at).join(''), all.slice(at).join('')] };
          }
          return { result: this.checkSize(self.split(textArg(0), this.limits.maxArrayItems + 1)) };
        }
        case 'split/2': {
          const limit = Number(intArg(1));
          const parts = self.split(textArg(0));
          this.charge(parts.length);
          if (limit >= 1 && parts.length > limit) parts.splice(limit - 1, parts.length, parts.slice(limit - 1).join(textArg(0)));
          return { result: this.checkSize(parts) };
        }
        case 'replace/2': {
          const find = textArg(0);
          const by = textArg(1);
          if (find === '') return { result: null, updated: self };
          const count = self.split(find).length - 1;
          if (self.length + count * (by.length - find.length) > this.limits.maxStringChars) throw this.fail('Length of string too large');
          return done(self.split(find).join(by));
        }
        case 'remove/1': return done(self.split(textArg(0)).join(''));
        case 'truncate/1': return done(chars().slice(0, Math.max(0, Number(intArg(0)))).join(''));
        case 'crop/1': case 'crop/2': {
          const all = chars();
          let start = intArg(0);
          if (start < 0n) start = BigInt(Math.max(0, all.length + Number(start)));
          const from = clampIndex(start, all.length);
          const length = args.length === 2 ? Math.max(0, Number(intArg(1))) : all.length;
          return done(all.slice(from, from + length).join(''));
        }
        case 'pad/2': {
          const target = intArg(0);
          const fill = textArg(1);
          const all = chars();
          if (target <= BigInt(all.length) || fill === '') return { result: null, updated: self };
          if (target > BigInt(this.limits.maxStringChars)) throw this.fail('Length of string too large');
          let out = self;
          let length = all.length;
          const fillChars = [...fill];
          while (length < target) {
            for (const c of fillChars) {
              if (length >= target) break;
              out += c;
              length++;
            }
          }
          return done(out);
        }
        case 'append/1': return done(self + displayText(arg(0)));
        case 'chars/0': case 'to_chars/0': return { result: this.checkSize(chars().map((c) => new RChar(c))) };
        case 'get/1': {
          const all = chars();
          const i = intArg(0) < 0n ? BigInt(all.length) + intArg(0) : intArg(0);
          return { result: i >= 0n && i < BigInt(all.length) ? new RChar(all[Number(i)]!) : null };
        }
        case 'reverse/0': return { result: this.text(chars().reverse().join('')) };
      }
      throw notFound();
    }

    if (Array.isArray(self)) {
      switch (`${name}/${args.length}`) {
        case 'len/0': return { result: BigInt(self.length) };
        case 'is_empty/0': return { result: self.length === 0 };
        case 'push/1': case 'append/1':
          if (name === 'append' && Array.isArray(arg(0))) {
            this.charge((arg(0) as Value[]).length);
            for (const item of arg(0) as Value[]) self.push(this.copy(item));
          } else self.push(this.copy(arg(0)));
          this.checkSize(self);
          return { result: null };
        case 'pop/0': return { result: self.length === 0 ? null : self.pop()! };
        case 'shift/0': this.charge(self.length); return { result: self.length === 0 ? null : self.shift()! };
        case 'insert/2': {
          this.charge(self.length);
          let at = intArg(0);
          if (at < 0n) at = BigInt(Math.max(0, self.length + Number(at)));
          self.splice(Math.min(Number(at), self.length), 0, this.copy(arg(1)));
          this.checkSize(self);
          return { result: null };
        }
        case 'remove/1': {
          this.charge(self.length);
          let at = intArg(0);
          if (at < 0n) at = BigInt(self.length) + at;
          if (at < 0n || at >= BigInt(self.length)) return { result: null };
          return { result: self.splice(Number(at), 1)[0]! };
        }
        case 'clear/0': self.length = 0; return { result: null };
        case 'truncate/1': self.length = Math.min(self.length, Math.max(0, Number(intArg(0)))); return { result: null };
        case 'reverse/0': this.charge(self.length); self.reverse(); return { result: null };
        case 'contains/1': return { result: this.contains(self, arg(0), pos) };
        case 'index_of/1': {
          this.charge(self.length);
          if (arg(0) instanceof FnPtr) return { result: BigInt(self.findIndex((item, i) => this.truthy(this.callPointer(fnArg(0), [item, BigInt(i)].slice(0, paramCount(fnArg(0), 2)), pos), pos))) };
          return { result: BigInt(self.findIndex((item) => valuesEqual(item, arg(0)))) };
        }
        case 'get/1': {
          const i = intArg(0) < 0n ? BigInt(self.length) + intArg(0) : intArg(0);
          return { result: i >= 0n && i < BigInt(self.length) ? self[Number(i)]! : null };
        }
        case 'extract/1': case 'extract/2': {
          const from = clampIndex(intArg(0) < 0n ? BigInt(Math.max(0, self.length + Number(intArg(0)))) : intArg(0), self.length);
          const length = args.length === 2 ? Math.max(0, Number(intArg(1))) : self.length;
          const out = self.slice(from, from + length);
          this.charge(out.length);
          return { result: out.map((item) => this.copy(item)) };
        }
        case 'sort/0': {
          this.charge(self.length * Math.max(1, Math.ceil(Math.log2(self.length + 1))));
          self.sort((a, b) => this.naturalOrder(a, b, pos));
          return { result: null };
        }
        case 'dedup/0': {
          this.charge(self.length);
          const out: Value[] = [];
          for (const item of self) if (out.length === 0 || !valuesEqual(out[out.length - 1]!, item)) out.push(item);
          self.splice(0, self.length, ...out);
          return { result: null };
        }
        case 'filter/1': case 'retain/1': case 'map/1': case 'some/1': case 'all/1': case 'find/1': case 'for_each/1': {
          const fn = fnArg(0);
          const call = (item: Value, i: number) => this.callPointer(fn, [item, BigInt(i)].slice(0, paramCount(fn, 2)), pos);
          const snapshot = [...self];
          switch (name) {
            case 'filter': return { result: snapshot.filter((item, i) => this.truthy(call(item, i), pos)).map((item) => this.copy(item)) };
            case 'retain': {
              const kept = snapshot.filter((item, i) => this.truthy(call(item, i), pos));
              self.splice(0, self.length, ...kept);
              return { result: null };
            }
            case 'map': return { result: snapshot.map((item, i) => this.copy(call(item, i))) };
            case 'some': return { result: snapshot.some((item, i) => this.truthy(call(item, i), pos)) };
            case 'all': return { result: snapshot.every((item, i) => this.truthy(call(item, i), pos)) };
            case 'find': {
              const found = snapshot.find((item, i) => this.truthy(call(item, i), pos));
              return { result: found === undefined ? null : this.copy(found) };
            }
            default: snapshot.forEach((item, i) => call(item, i)); return { result: null };
          }
        }
        case 'reduce/2': {
          const fn = fnArg(0);
          let acc: Value = arg(1);
          self.forEach((item, i) => { acc = this.callPointer(fn, [acc, item, BigInt(i)].slice(0, paramCount(fn, 3)), pos); });
          return { result: acc };
        }
      }
      throw notFound();
    }

    if (self instanceof Map) {
      switch (`${name}/${args.length}`) {
        case 'len/0': return { result: BigInt(self.size) };
        case 'is_empty/0': return { result: self.size === 0 };
        case 'keys/0': this.charge(self.size); return { result: [...self.keys()] };
        case 'values/0': this.charge(self.size); return { result: [...self.values()].map((item) => this.copy(item)) };
        case 'contains/1': return { result: self.has(textArg(0)) };
        case 'get/1': return { result: self.has(textArg(0)) ? self.get(textArg(0))! : null };
        case 'remove/1': {
          const key = textArg(0);
          const removed = self.has(key) ? self.get(key)! : null;
          self.delete(key);
          return { result: removed };
        }
        case 'set/2': self.set(textArg(0), this.copy(arg(1))); this.checkSize(self); return { result: null };
        case 'clear/0': self.clear(); return { result: null };
        case 'mixin/1': case 'fill_with/1': {
          const other = arg(0);
          if (!(other instanceof Map)) throw notFound();
          this.charge(other.size);
          for (const [key, item] of other) if (name === 'mixin' || !self.has(key)) self.set(key, this.copy(item));
          this.checkSize(self);
          return { result: null };
        }
      }
      throw notFound();
    }

    if (typeof self === 'bigint' || typeof self === 'number') {
      const float = Number(self);
      switch (`${name}/${args.length}`) {
        case 'abs/0': return { result: typeof self === 'bigint' ? this.int(self < 0n ? -self : self, pos, `Negation overflow: -${self}`) : Math.abs(self) };
        case 'sign/0': return { result: typeof self === 'bigint' ? (self > 0n ? 1n : self < 0n ? -1n : 0n) : BigInt(Math.sign(self)) };
        case 'is_zero/0': return { result: float === 0 };
        case 'to_float/0': return { result: float };
        case 'to_int/0': {
          if (typeof self === 'bigint') return { result: self };
          if (!Number.isFinite(self) || Math.abs(self) >= 9.223372036854776e18) throw new RhaiRuntimeError(`Integer overflow: to_int(${floatText(self)})`, pos);
          return { result: BigInt(Math.trunc(self)) };
        }
        case 'floor/0': return { result: Math.floor(float) };
        case 'ceiling/0': return { result: Math.ceil(float) };
        case 'round/0': return { result: Math.sign(float) * Math.round(Math.abs(float)) };
        case 'int/0': return { result: Math.trunc(float) };
        case 'fraction/0': return { result: float - Math.trunc(float) };
        case 'sqrt/0': return { result: Math.sqrt(float) };
        case 'is_nan/0': return { result: Number.isNaN(float) };
        case 'is_even/0': if (typeof self === 'bigint') return { result: self % 2n === 0n }; break;
        case 'is_odd/0': if (typeof self === 'bigint') return { result: self % 2n !== 0n }; break;
        case 'min/1': case 'max/1': {
          const other = arg(0);
          if (typeof other !== 'bigint' && typeof other !== 'number') throw notFound();
          const less = this.binary('<', self, other, pos) as boolean;
          return { result: name === 'min' ? (less ? self : other) : (less ? other : self) };
        }
      }
      throw notFound();
    }

    if (self instanceof RChar) {
      switch (`${name}/${args.length}`) {
        case 'to_upper/0': return { result: new RChar(self.c.toUpperCase()) };
        case 'to_lower/0': return { result: new RChar(self.c.toLowerCase()) };
        case 'to_int/0': return { result: BigInt(self.c.codePointAt(0)!) };
        case 'is_whitespace/0': return { result: /\s/u.test(self.c) };
        case 'is_digit/0': return { result: /[0-9]/.test(self.c) };
      }
      throw notFound();
    }
    throw notFound();
  }

  private truthy(value: Value, pos: Pos): boolean {
    if (typeof value !== 'boolean') throw new RhaiRuntimeError(`Data type incorrect: ${typeName(value)} (expecting bool)`, pos);
    return value;
  }

  private naturalOrder(a: Value, b: Value, pos: Pos): number {
    if (this.binary('<', a, b, pos)) return -1;
    if (this.binary('>', a, b, pos)) return 1;
    return 0;
  }
}

/** In-place methods: on a variable or a part of one they change it (Rhai's `&mut` first parameter). */
const MUTATING = new Set(['make_upper', 'make_lower', 'trim', 'clear', 'replace', 'remove', 'truncate', 'crop', 'pad', 'append',
  'push', 'pop', 'shift', 'insert', 'reverse', 'sort', 'dedup', 'retain', 'set', 'mixin', 'fill_with']);

function isContainer(value: Value): boolean {
  return Array.isArray(value) || value instanceof Map;
}

function isPlaceExpr(expr: Expr): boolean {
  if (expr.t === 'var') return true;
  if ((expr.t === 'prop' || expr.t === 'index') && !expr.safe) return isPlaceExpr(expr.target);
  return false;
}

/** Rhai counts characters (Unicode scalar values), not UTF-16 units. */
function characterCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) count--;
  }
  return count;
}

function clampIndex(index: bigint, length: number): number {
  if (index < 0n) return 0;
  return index > BigInt(length) ? length : Number(index);
}

function paramCount(fn: FnPtr, most: number): number {
  return fn.body === null ? 1 : Math.min(Math.max(fn.params.length, 1), most);
}

function sizeOf(value: Value): number {
  if (Array.isArray(value)) return value.length;
  if (value instanceof Map) return value.size;
  if (typeof value === 'string') return Math.floor(value.length / CHARS_PER_OPERATION);
  return 0;
}

export type { FnDef };

/** An index into `length` elements (negative: from the end), with Rhai's messages when out of bounds. */
function elementIndex(length: number, index: Value, pos: Pos, kind: string, noun: string, unit: string): number {
  if (typeof index !== 'bigint') throw new RhaiRuntimeError(`Indexer unavailable: ${typeName(index)}`, pos);
  const i = index < 0n ? BigInt(length) + index : index;
  if (i < 0n || i >= BigInt(length)) {
    throw new RhaiRuntimeError(length === 0 ? `${kind} index ${index} out of bounds: ${noun} is empty`
      : `${kind} index ${index} out of bounds: ${noun} has ${length} ${unit}${length === 1 ? '' : 's'}`, pos);
  }
  return Number(i);
}
