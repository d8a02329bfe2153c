// Lexer and parser of the Rhai subset: source text -> Program (statements as plain objects).
// Parsed on the front (a syntax error is the request's 400) and again by the scheduler, which runs it.
// Bounds: the caller bounds the source's length; nesting deeper than MAX_DEPTH is refused here.

export interface Pos { line: number; col: number }

/** Rhai's ParseError display: `<message> (line L, position P)`. */
export class RhaiSyntaxError extends Error {
  constructor(readonly reason: string, readonly pos: Pos) {
    super(`${reason} (line ${pos.line}, position ${pos.col})`);
  }
}

/** Rhai's default expression depth at global level, as Meilisearch sets it (set_max_expr_depths(100, ...)). */
export const MAX_DEPTH = 100;
/** Meilisearch's set_max_functions(30). */
export const MAX_FUNCTIONS = 30;

type TemplatePart = string | Token[];
export type Token =
  | { kind: 'int'; value: bigint; pos: Pos }
  | { kind: 'float'; value: number; pos: Pos }
  | { kind: 'string'; value: string; pos: Pos }
  | { kind: 'char'; value: string; pos: Pos }
  | { kind: 'template'; parts: TemplatePart[]; pos: Pos }
  | { kind: 'ident'; value: string; pos: Pos }
  | { kind: 'punct'; value: string; pos: Pos }
  | { kind: 'eof'; pos: Pos };

const PUNCTS = ['..=', '**=', '<<=', '>>=', '!in', '#{', '==', '!=', '<=', '>=', '&&', '||', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=',
  '..', '**', '<<', '>>', '??', '?.', '?[', '::', '=>', '+', '-', '*', '/', '%', '=', '<', '>', '!', '&', '|', '^', '.', ',', ';', ':', '(', ')', '[', ']', '{', '}', '?'];

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\', '"': '"', "'": "'" };

class Lexer {
  private i = 0;
  /** Nesting of `${` in back-tick strings (each level is a recursion here). */
  private templates = 0;
  private line = 1;
  private col = 1;
  constructor(private readonly src: string) {}

  private pos(): Pos { return { line: this.line, col: this.col }; }

  private advance(): string {
    const c = this.src[this.i++]!;
    if (c === '\n') { this.line++; this.col = 1; } else this.col++;
    return c;
  }

  private skipTrivia(): void {
    for (;;) {
      const c = this.src[this.i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.advance();
      else if (c === '/' && this.src[this.i + 1] === '/') { while (this.i < this.src.length && this.src[this.i] !== '\n') this.advance(); }
      else if (c === '/' && this.src[this.i + 1] === '*') {
        const start = this.pos();
        this.advance(); this.advance();
        let depth = 1;
        while (depth > 0) {
          if (this.i >= this.src.length) throw new RhaiSyntaxError('Script is incomplete', start);
          if (this.src.startsWith('/*', this.i)) { depth++; this.advance(); }
          else if (this.src.startsWith('*/', this.i)) { depth--; this.advance(); }
          this.advance();
        }
      } else return;
    }
  }

  /** Tokens up to the end, or (inside `${`) up to the matching `}`. */
  tokens(inTemplate = false): Token[] {
    const out: Token[] = [];
    let braces = 0;
    for (;;) {
      this.skipTrivia();
      const pos = this.pos();
      if (this.i >= this.src.length) {
        if (inTemplate) throw new RhaiSyntaxError('Open string is not terminated', pos);
        out.push({ kind: 'eof', pos });
        return out;
      }
      const c = this.src[this.i]!;
      if (inTemplate && c === '}' && braces === 0) {
        this.advance();
        out.push({ kind: 'eof', pos });
        return out;
      }
      if (/[0-9]/.test(c)) { out.push(this.number(pos)); continue; }
      if (/[A-Za-z_]/.test(c)) {
        let name = '';
        while (this.i < this.src.length && /[A-Za-z0-9_]/.test(this.src[this.i]!)) name += this.advance();
        out.push({ kind: 'ident', value: name, pos });
        continue;
      }
      if (c === '"') { out.push({ kind: 'string', value: this.quoted('"', pos), pos }); continue; }
      if (c === "'") {
        const text = this.quoted("'", pos);
        if ([...text].length !== 1) throw new RhaiSyntaxError(`Invalid character: '${text}'`, pos);
        out.push({ kind: 'char', value: text, pos });
        continue;
      }
      if (c === '`') { out.push(this.template(pos)); continue; }
      const punct = PUNCTS.find((p) => this.src.startsWith(p, this.i));
      if (punct === undefined) throw new RhaiSyntaxError(`Invalid symbol encountered: '${c}'`, pos);
      // `!in` only before a separator (`!inside` is `!` then a name).
      if (punct === '!in' && /[A-Za-z0-9_]/.test(this.src[this.i + 3] ?? '')) {
        this.advance();
        out.push({ kind: 'punct', value: '!', pos });
        continue;
      }
      for (let k = 0; k < punct.length; k++) this.advance();
      if (punct === '{' || punct === '#{') braces++;
      if (punct === '}') braces--;
      out.push({ kind: 'punct', value: punct, pos });
    }
  }

  private number(pos: Pos): Token {
    const start = this.i;
    if (this.src[this.i] === '0' && /[xob]/.test(this.src[this.i + 1] ?? '')) {
      const radix = { x: 16, o: 8, b: 2 }[this.src[this.i + 1] as 'x' | 'o' | 'b'];
      this.advance(); this.advance();
      let digits = '';
      while (this.i < this.src.length && /[0-9A-Fa-f_]/.test(this.src[this.i]!)) digits += this.advance();
      const clean = digits.replace(/_/g, '');
      const prefix = { 16: '0x', 8: '0o', 2: '0b' }[radix]!;
      let value: bigint;
      try { value = BigInt(prefix + clean); } catch { throw new RhaiSyntaxError(`Invalid number: '${this.src.slice(start, this.i)}'`, pos); }
      if (value > 2n ** 63n - 1n) throw new RhaiSyntaxError(`Invalid number: '${this.src.slice(start, this.i)}'`, pos);
      return { kind: 'int', value, pos };
    }
    let text = '';
    let isFloat = false;
    while (this.i < this.src.length && /[0-9_]/.test(this.src[this.i]!)) text += this.advance();
    // `1.5` is a float; `1..5` a range and `1.abs()` a method call.
    if (this.src[this.i] === '.' && /[0-9]/.test(this.src[this.i + 1] ?? '')) {
      isFloat = true;
      text += this.advance();
      while (this.i < this.src.length && /[0-9_]/.test(this.src[this.i]!)) text += this.advance();
    }
    if (/[eE]/.test(this.src[this.i] ?? '') && /[-+0-9]/.test(this.src[this.i + 1] ?? '')) {
      isFloat = true;
      text += this.advance();
      if (/[-+]/.test(this.src[this.i]!)) text += this.advance();
      while (this.i < this.src.length && /[0-9]/.test(this.src[this.i]!)) text += this.advance();
    }
    const clean = text.replace(/_/g, '');
    if (isFloat) return { kind: 'float', value: Number(clean), pos };
    const value = BigInt(clean);
    if (value > 2n ** 63n - 1n) throw new RhaiSyntaxError(`Invalid number: '${text}'`, pos);
    return { kind: 'int', value, pos };
  }

  private quoted(quote: string, pos: Pos): string {
    this.advance();
    let out = '';
    for (;;) {
      if (this.i >= this.src.length) throw new RhaiSyntaxError('Open string is not terminated', pos);
      const c = this.advance();
      if (c === quote) return out;
      if (c === '\n' && quote === '"') throw new RhaiSyntaxError('Open string is not terminated', pos);
      if (c !== '\\') { out += c; continue; }
      const escPos = this.pos();
      const e = this.advance();
      if (e in ESCAPES) out += ESCAPES[e];
      else if (e === '\n') { while (/[ \t]/.test(this.src[this.i] ?? '')) this.advance(); }
      else if (e === 'x' || e === 'u' || e === 'U') {
        const length = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = this.src.slice(this.i, this.i + length);
        const code = /^[0-9A-Fa-f]+$/.test(hex) && hex.length === length ? parseInt(hex, 16) : NaN;
        if (!(code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) throw new RhaiSyntaxError(`Invalid escape sequence: '\\${e}${hex}'`, escPos);
        for (let k = 0; k < length; k++) this.advance();
        out += String.fromCodePoint(code);
      } else throw new RhaiSyntaxError(`Invalid escape sequence: '\\${e}'`, escPos);
    }
  }

  /** A back-tick string: literal text (no escapes but a doubled back-tick) and `${ expression }` parts. */
  private template(pos: Pos): Token {
    this.advance();
    const parts: TemplatePart[] = [];
    let text = '';
    for (;;) {
      if (this.i >= this.src.length) throw new RhaiSyntaxError('Open string is not terminated', pos);
      if (this.src[this.i] === '`') {
        if (this.src[this.i + 1] === '`') { this.advance(); this.advance(); text += '`'; continue; }
        this.advance();
        if (text !== '' || parts.length === 0) parts.push(text);
        return { kind: 'template', parts, pos };
      }
      if (this.src.startsWith('${', this.i)) {
        const at = this.pos();
        this.advance(); this.advance();
        if (text !== '') parts.push(text);
        text = '';
        if (++this.templates > MAX_DEPTH) throw new RhaiSyntaxError('Expression exceeds maximum complexity', at);
        parts.push(this.tokens(true));
        this.templates--;
        continue;
      }
      text += this.advance();
    }
  }
}

// ---- AST ------------------------------------------------------------------------------------

export type Expr =
  | { t: 'lit'; value: null | boolean | bigint | number | string; pos: Pos }
  | { t: 'char'; value: string; pos: Pos }
  | { t: 'tmpl'; parts: (string | Expr)[]; pos: Pos }
  | { t: 'var'; name: string; pos: Pos }
  | { t: 'array'; items: Expr[]; pos: Pos }
  | { t: 'map'; entries: [string, Expr][]; pos: Pos }
  | { t: 'prop'; target: Expr; name: string; safe: boolean; pos: Pos }
  | { t: 'index'; target: Expr; index: Expr; safe: boolean; pos: Pos }
  | { t: 'method'; target: Expr; name: string; args: Expr[]; safe: boolean; pos: Pos }
  | { t: 'call'; name: string; args: Expr[]; pos: Pos }
  | { t: 'unary'; op: string; operand: Expr; pos: Pos }
  | { t: 'binary'; op: string; left: Expr; right: Expr; pos: Pos }
  | { t: 'if'; cond: Expr; then: Stmt[]; otherwise: Stmt[] | null; pos: Pos }
  | { t: 'block'; body: Stmt[]; pos: Pos }
  | { t: 'closure'; params: string[]; body: Stmt[]; captures: string[]; pos: Pos };

export type Stmt =
  | { t: 'expr'; expr: Expr; pos: Pos }
  | { t: 'let'; name: string; constant: boolean; init: Expr | null; pos: Pos }
  | { t: 'assign'; op: string; target: Expr; value: Expr; pos: Pos }
  | { t: 'while'; cond: Expr | null; body: Stmt[]; pos: Pos }
  | { t: 'do'; body: Stmt[]; cond: Expr; until: boolean; pos: Pos }
  | { t: 'for'; name: string; counter: string | null; source: Expr; body: Stmt[]; pos: Pos }
  | { t: 'break'; pos: Pos }
  | { t: 'continue'; pos: Pos }
  | { t: 'return'; value: Expr | null; pos: Pos }
  | { t: 'throw'; value: Expr | null; pos: Pos };

export interface FnDef { name: string; params: string[]; body: Stmt[]; pos: Pos }
export interface Program { body: Stmt[]; functions: Map<string, FnDef> }

const RESERVED = new Set(['let', 'const', 'if', 'else', 'while', 'loop', 'do', 'until', 'for', 'in', 'break', 'continue', 'return', 'throw',
  'fn', 'private', 'switch', 'try', 'catch', 'import', 'export', 'as', 'global', 'this', 'true', 'false']);
const UNSUPPORTED = new Set(['switch', 'try', 'catch', 'import', 'export', 'global', 'private']);
const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '**=', '<<=', '>>=', '&=', '|=', '^=']);
const PRECEDENCE: Record<string, number> = {
  '||': 30, '|': 30, '^': 30, '&&': 60, '&': 60, '==': 90, '!=': 90, in: 110, '!in': 110,
  '<': 130, '<=': 130, '>': 130, '>=': 130, '??': 135, '..': 140, '..=': 140, '+': 150, '-': 150,
  '*': 180, '/': 180, '%': 180, '**': 190, '<<': 210, '>>': 210,
};

class Parser {
  private k = 0;
  private depth = 0;
  constructor(private readonly toks: Token[], private readonly functions: Map<string, FnDef>) {}

  private peek(offset = 0): Token { return this.toks[Math.min(this.k + offset, this.toks.length - 1)]!; }
  private next(): Token { return this.toks[this.k < this.toks.length - 1 ? this.k++ : this.k]!; }
  private isPunct(value: string, offset = 0): boolean { const t = this.peek(offset); return t.kind === 'punct' && t.value === value; }
  private isWord(value: string): boolean { const t = this.peek(); return t.kind === 'ident' && t.value === value; }

  private expect(value: string, context: string): Token {
    const t = this.peek();
    if (t.kind === 'eof') throw new RhaiSyntaxError('Script is incomplete', t.pos);
    if (!(t.kind === 'punct' && t.value === value)) throw new RhaiSyntaxError(`Expecting '${value}' ${context}`, t.pos);
    return this.next();
  }

  private enter(pos: Pos): void {
    if (++this.depth > MAX_DEPTH) throw new RhaiSyntaxError('Expression exceeds maximum complexity', pos);
  }

  private ident(context: string): string {
    const t = this.peek();
    if (t.kind === 'eof') throw new RhaiSyntaxError('Script is incomplete', t.pos);
    if (t.kind !== 'ident') throw new RhaiSyntaxError(context, t.pos);
    if (RESERVED.has(t.value)) throw new RhaiSyntaxError(`'${t.value}' is a reserved keyword`, t.pos);
    this.next();
    return t.value;
  }

  program(): Stmt[] {
    const body: Stmt[] = [];
    while (this.peek().kind !== 'eof') {
      if (this.isWord('fn')) { this.fnDef(); continue; }
      const stmt = this.statement();
      if (stmt) body.push(stmt);
    }
    return body;
  }

  private fnDef(): void {
    const pos = this.next().pos;
    const name = this.ident('Expecting function name in function declaration');
    this.expect('(', `to start a list of parameters for function ${name}`);
    const params: string[] = [];
    while (!this.isPunct(')')) {
      const param = this.ident('Expecting name of a variable');
      if (params.includes(param)) throw new RhaiSyntaxError(`Duplicated parameter ${param} for function ${name}`, this.peek().pos);
      params.push(param);
      if (!this.isPunct(')')) this.expect(',', `to separate the parameters of function ${name}`);
    }
    this.next();
    if (!this.isPunct('{')) throw new RhaiSyntaxError(`Expecting body statement block for function ${name}`, this.peek().pos);
    const body = this.block();
    const key = `${name}/${params.length}`;
    if (this.functions.has(key)) throw new RhaiSyntaxError(`Function ${name} with ${params.length} parameter${params.length === 1 ? '' : 's'} already exists`, pos);
    if (this.functions.size >= MAX_FUNCTIONS) throw new RhaiSyntaxError('Number of functions defined exceeds maximum limit', pos);
    this.functions.set(key, { name, params, body, pos });
  }

  private block(): Stmt[] {
    const open = this.expect('{', 'to start a statement block');
    this.enter(open.pos);
    const body: Stmt[] = [];
    while (!this.isPunct('}')) {
      if (this.peek().kind === 'eof') throw new RhaiSyntaxError('Script is incomplete', this.peek().pos);
      if (this.isWord('fn')) throw new RhaiSyntaxError('Function definitions must be at global level and cannot be inside a block or another function', this.peek().pos);
      const stmt = this.statement();
      if (stmt) body.push(stmt);
    }
    this.next();
    this.depth--;
    return body;
  }

  /** One statement and its terminating `;` (optional after a block-like statement and before `}` or the end). */
  private statement(): Stmt | null {
    const t = this.peek();
    if (t.kind === 'punct' && t.value === ';') { this.next(); return null; }
    let stmt: Stmt;
    let blockLike = false;
    if (t.kind === 'ident') {
      if (UNSUPPORTED.has(t.value)) throw new RhaiSyntaxError(`'${t.value}' is not supported by this server's Rhai subset`, t.pos);
      switch (t.value) {
        case 'let': case 'const': {
          this.next();
          const name = this.ident('Expecting name of a variable');
          let init: Expr | null = null;
          if (this.isPunct('=')) { this.next(); init = this.expression(); }
          else if (t.value === 'const') throw new RhaiSyntaxError(`Expecting '=' for the definition of constant ${name}`, this.peek().pos);
          stmt = { t: 'let', name, constant: t.value === 'const', init, pos: t.pos };
          break;
        }
        case 'while': case 'loop': {
          this.next();
          const cond = t.value === 'while' ? this.expression() : null;
          stmt = { t: 'while', cond, body: this.block(), pos: t.pos };
          blockLike = true;
          break;
        }
        case 'do': {
          this.next();
          const body = this.block();
          const word = this.peek();
          if (!(word.kind === 'ident' && (word.value === 'while' || word.value === 'until'))) {
            throw new RhaiSyntaxError("Expecting 'while' or 'until' for the do statement", word.pos);
          }
          this.next();
          stmt = { t: 'do', body, cond: this.expression(), until: word.value === 'until', pos: t.pos };
          break;
        }
        case 'for': {
          this.next();
          let name: string;
          let counter: string | null = null;
          if (this.isPunct('(')) {
            this.next();
            name = this.ident('Expecting name of a variable');
            this.expect(',', 'after the iteration variable name');
            counter = this.ident('Expecting name of a variable');
            this.expect(')', 'to close the iteration variable');
          } else name = this.ident('Expecting name of a variable');
          if (!this.isWord('in')) throw new RhaiSyntaxError("Expecting 'in' after the iteration variable", this.peek().pos);
          this.next();
          const source = this.expression();
          stmt = { t: 'for', name, counter, source, body: this.block(), pos: t.pos };
          blockLike = true;
          break;
        }
        case 'break': this.next(); stmt = { t: 'break', pos: t.pos }; break;
        case 'continue': this.next(); stmt = { t: 'continue', pos: t.pos }; break;
        case 'return': case 'throw': {
          this.next();
          const ends = this.isPunct(';') || this.isPunct('}') || this.peek().kind === 'eof';
          stmt = { t: t.value, value: ends ? null : this.expression(), pos: t.pos };
          break;
        }
        default: stmt = this.expressionStatement();
      }
    } else stmt = this.expressionStatement();
    if (stmt.t === 'expr' && (stmt.expr.t === 'if' || stmt.expr.t === 'block')) blockLike = true;
    if (this.isPunct(';')) this.next();
    else if (!blockLike && !this.isPunct('}') && this.peek().kind !== 'eof') {
      throw new RhaiSyntaxError("Expecting ';' to terminate this statement", this.peek().pos);
    }
    return stmt;
  }

  private expressionStatement(): Stmt {
    const pos = this.peek().pos;
    const expr = this.expression();
    const t = this.peek();
    if (t.kind === 'punct' && ASSIGN_OPS.has(t.value)) {
      if (!isPlace(expr)) throw new RhaiSyntaxError('Expression cannot be assigned to', t.pos);
      this.next();
      return { t: 'assign', op: t.value, target: expr, value: this.expression(), pos: t.pos };
    }
    return { t: 'expr', expr, pos };
  }

  expression(minPrec = 0): Expr {
    const start = this.peek().pos;
    this.enter(start);
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      const op = t.kind === 'punct' ? t.value : t.kind === 'ident' && t.value === 'in' ? 'in' : null;
      const prec = op === null ? undefined : PRECEDENCE[op];
      if (prec === undefined || prec <= minPrec) break;
      this.next();
      // `**` binds to the right.
      const right = this.expression(op === '**' ? prec - 1 : prec);
      left = { t: 'binary', op: op!, left, right, pos: t.pos };
    }
    this.depth--;
    return left;
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind === 'punct' && (t.value === '-' || t.value === '+' || t.value === '!')) {
      this.next();
      this.enter(t.pos);
      const operand = this.unary();
      this.depth--;
      // A negative literal is one value (so i64::MIN can be written).
      if (t.value === '-' && operand.t === 'lit' && (typeof operand.value === 'bigint' || typeof operand.value === 'number')) {
        return { t: 'lit', value: -operand.value, pos: t.pos };
      }
      return { t: 'unary', op: t.value, operand, pos: t.pos };
    }
    return this.postfix(this.primary());
  }

  private postfix(expr: Expr): Expr {
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'punct') return expr;
      if (t.value === '.' || t.value === '?.') {
        this.next();
        const nameTok = this.peek();
        if (nameTok.kind !== 'ident') throw new RhaiSyntaxError('Expecting name of a property', nameTok.pos);
        this.next();
        if (this.isPunct('(')) {
          expr = { t: 'method', target: expr, name: nameTok.value, args: this.args(), safe: t.value === '?.', pos: nameTok.pos };
        } else expr = { t: 'prop', target: expr, name: nameTok.value, safe: t.value === '?.', pos: nameTok.pos };
      } else if (t.value === '[' || t.value === '?[') {
        this.next();
        const index = this.expression();
        this.expect(']', 'to close the indexing expression');
        expr = { t: 'index', target: expr, index, safe: t.value === '?[', pos: t.pos };
      } else return expr;
    }
  }

  private args(): Expr[] {
    this.expect('(', 'to start the arguments');
    const args: Expr[] = [];
    while (!this.isPunct(')')) {
      if (this.peek().kind === 'eof') throw new RhaiSyntaxError('Script is incomplete', this.peek().pos);
      args.push(this.expression());
      if (!this.isPunct(')')) this.expect(',', 'to separate the arguments to function call');
    }
    this.next();
    return args;
  }

  private primary(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case 'eof': throw new RhaiSyntaxError('Script is incomplete', t.pos);
      case 'int': case 'float': case 'string': this.next(); return { t: 'lit', value: t.value, pos: t.pos };
      case 'char': this.next(); return { t: 'char', value: t.value, pos: t.pos };
      case 'template': {
        this.next();
        const parts = t.parts.map((part) => {
          if (typeof part === 'string') return part;
          const sub = new Parser(part, this.functions);
          sub.depth = this.depth;
          if (sub.peek().kind === 'eof') throw new RhaiSyntaxError('Expecting a string interpolation expression', sub.peek().pos);
          const expr = sub.expression();
          if (sub.peek().kind !== 'eof') throw new RhaiSyntaxError("Expecting '}' to close the string interpolation", sub.peek().pos);
          return expr;
        });
        return { t: 'tmpl', parts, pos: t.pos };
      }
      case 'ident': {
        if (t.value === 'true' || t.value === 'false') { this.next(); return { t: 'lit', value: t.value === 'true', pos: t.pos }; }
        if (t.value === 'if') return this.ifExpr();
        if (UNSUPPORTED.has(t.value)) throw new RhaiSyntaxError(`'${t.value}' is not supported by this server's Rhai subset`, t.pos);
        if (RESERVED.has(t.value)) throw new RhaiSyntaxError(`'${t.value}' is a reserved keyword`, t.pos);
        this.next();
        if (this.isPunct('(')) return { t: 'call', name: t.value, args: this.args(), pos: t.pos };
        if (this.isPunct('::')) throw new RhaiSyntaxError(`Undefined module: ${t.value}`, t.pos);
        return { t: 'var', name: t.value, pos: t.pos };
      }
      case 'punct': {
        if (t.value === '(') {
          this.next();
          if (this.isPunct(')')) { this.next(); return { t: 'lit', value: null, pos: t.pos }; }
          const inner = this.expression();
          this.expect(')', 'for a matching ( in this expression');
          return inner;
        }
        if (t.value === '[') {
          this.next();
          const items: Expr[] = [];
          while (!this.isPunct(']')) {
            if (this.peek().kind === 'eof') throw new RhaiSyntaxError('Script is incomplete', this.peek().pos);
            items.push(this.expression());
            if (!this.isPunct(']')) this.expect(',', 'to separate the items of this array literal');
          }
          this.next();
          return { t: 'array', items, pos: t.pos };
        }
        if (t.value === '#{') {
          this.next();
          const entries: [string, Expr][] = [];
          while (!this.isPunct('}')) {
            const key = this.peek();
            if (key.kind === 'eof') throw new RhaiSyntaxError('Script is incomplete', key.pos);
            if (key.kind !== 'ident' && key.kind !== 'string') throw new RhaiSyntaxError('Expecting name of a property', key.pos);
            this.next();
            if (entries.some(([name]) => name === key.value)) throw new RhaiSyntaxError(`Duplicated property for object map literal: ${key.value}`, key.pos);
            this.expect(':', `to follow the property '${key.value}' in this object map literal`);
            entries.push([key.value, this.expression()]);
            if (!this.isPunct('}')) this.expect(',', 'to separate the items of this object map literal');
          }
          this.next();
          return { t: 'map', entries, pos: t.pos };
        }
        if (t.value === '{') return { t: 'block', body: this.block(), pos: t.pos };
        if (t.value === '|' || t.value === '||') return this.closure();
        throw new RhaiSyntaxError(`Unexpected '${t.value}'`, t.pos);
      }
    }
  }

  private ifExpr(): Expr {
    const pos = this.next().pos;
    this.enter(pos);
    const cond = this.expression();
    const then = this.block();
    let otherwise: Stmt[] | null = null;
    if (this.isWord('else')) {
      this.next();
      if (this.isWord('if')) {
        const nested = this.ifExpr();
        otherwise = [{ t: 'expr', expr: nested, pos: nested.pos }];
      } else otherwise = this.block();
    }
    this.depth--;
    return { t: 'if', cond, then, otherwise, pos };
  }

  private closure(): Expr {
    const open = this.next();
    const params: string[] = [];
    if (open.kind === 'punct' && open.value === '|') {
      while (!this.isPunct('|')) {
        params.push(this.ident('Expecting name of a variable'));
        if (!this.isPunct('|')) this.expect(',', 'to separate the parameters of this closure');
      }
      this.next();
    }
    let body: Stmt[];
    if (this.isPunct('{')) body = this.block();
    else {
      const expr = this.expression();
      body = [{ t: 'expr', expr, pos: expr.pos }];
    }
    const captures = [...namesIn(body)].filter((name) => !params.includes(name));
    return { t: 'closure', params, body, captures, pos: open.pos };
  }
}

/** Variable names a closure's body refers to (copied from the outer scope when the closure is made). */
function namesIn(body: Stmt[]): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) { for (const item of node) visit(item); return; }
    const record = node as Record<string, unknown>;
    if (record.t === 'var' && typeof record.name === 'string') names.add(record.name);
    for (const [key, value] of Object.entries(record)) if (key !== 'pos') visit(value);
  };
  visit(body);
  return names;
}

function isPlace(expr: Expr): boolean {
  if (expr.t === 'var') return true;
  if ((expr.t === 'prop' || expr.t === 'index') && !expr.safe) return isPlace(expr.target);
  return false;
}

/** Parses a whole script; throws RhaiSyntaxError. */
export function parseProgram(source: string): Program {
  const functions = new Map<string, FnDef>();
  const body = new Parser(new Lexer(source).tokens(), functions).program();
  return { body, functions };
}
