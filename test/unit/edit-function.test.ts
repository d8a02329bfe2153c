// The Rhai subset of edit documents by function (src/documents/edit-function): semantics scripts rely
// on (value semantics, in-place string methods, INT vs FLOAT, maps as documents), Rhai's error texts
// with positions, and the bounds (operations, sizes, depth) that keep a hostile script finite.
import test from 'ava';
import {
  compileEditFunction, contextValue, DEFAULT_RHAI_LIMITS, DocumentMustBeObject, editDocument, RhaiRuntimeError, RhaiSyntaxError,
} from '../../src/documents/edit-function/index.js';

function run(source: string, document: string, context?: Record<string, unknown>): string {
  const outcome = editDocument(compileEditFunction(source), document, contextValue(context));
  return outcome.kind === 'edited' ? outcome.text : outcome.kind;
}

function runtimeError(source: string, document = '{"id":1}', limits = DEFAULT_RHAI_LIMITS): string {
  try {
    editDocument(compileEditFunction(source), document, undefined, limits);
  } catch (cause) {
    if (cause instanceof RhaiRuntimeError) return cause.message;
    throw cause;
  }
  throw new Error(`no error: ${source}`);
}

function syntaxError(source: string): string {
  try {
    compileEditFunction(source);
  } catch (cause) {
    if (cause instanceof RhaiSyntaxError) return cause.message;
    throw cause;
  }
  throw new Error(`no error: ${source}`);
}

test('documents: unchanged, deleted, edited; old fields keep their place, new ones follow sorted, nested maps sorted', (t) => {
  t.is(run('let x = 1;', '{"id":1,"b":2}'), 'unchanged');
  t.is(run('doc.b = 2', '{"id":1,"b":2}'), 'unchanged');
  t.is(run('doc = ()', '{"id":1}'), 'deleted');
  t.is(run('doc.z = 1; doc.a = #{y: 1, b: [1, "x"]}; doc.b = ();', '{"id":1,"b":2,"c":true}'),
    '{"id":1,"b":null,"c":true,"a":{"b":[1,"x"],"y":1},"z":1}');
  t.throws(() => run('doc = "text"', '{"id":1}'), { instanceOf: DocumentMustBeObject });
});

test('numbers: INT is exact i64, FLOAT keeps its .0, mixed arithmetic is FLOAT, overflow and division by zero are errors', (t) => {
  t.is(run('doc.a = doc.big + 1; doc.b = 7 / 2; doc.c = 7.0 / 2; doc.d = doc.f * 2; doc.e = 2 ** 10; doc.g = 1.0', '{"big":9007199254740993,"f":1.5}'),
    '{"big":9007199254740993,"f":1.5,"a":9007199254740994,"b":3,"c":3.5,"d":3.0,"e":1024,"g":1.0}');
  t.is(runtimeError('let x = 9223372036854775807 * 2;'), 'Multiplication overflow: 9223372036854775807 * 2 (line 1, position 29)');
  t.is(runtimeError('let x = 1 / 0;'), 'Division by zero: 1 / 0 (line 1, position 11)');
});

test('value semantics: let, assignment, arguments and loop items are copies', (t) => {
  t.is(run('let t = doc.tags; t.push("c"); doc.copy = t;', '{"tags":["a"]}'), '{"tags":["a"],"copy":["a","c"]}');
  t.is(run('let m = doc; m.x = 1; doc.y = m.x;', '{"id":1}'), '{"id":1,"y":1}');
  t.is(run('for t in doc.tags { t.push(1); } doc.n = doc.tags.len;', '{"tags":[[0]]}'), '{"tags":[[0]],"n":1}');
  t.is(run('fn grow(a) { a.push(1); a } doc.b = grow(doc.a);', '{"a":[]}'), '{"a":[],"b":[1]}');
  t.is(run('doc.tags.push("b"); doc.nested.list += [2];', '{"tags":["a"],"nested":{"list":[1]}}'), '{"tags":["a","b"],"nested":{"list":[1,2]}}');
});

test('strings: Rhai in-place methods (trim, replace, make_upper...) and returning ones (to_upper, sub_string, split...)', (t) => {
  t.is(run('doc.t.trim(); doc.u = doc.t.to_upper(); doc.t.replace("b", "B");', '{"t":"  abc "}'), '{"t":"aBc","u":"ABC"}');
  t.is(run('let s = doc.t; s.make_upper(); doc.s = s;', '{"t":"x"}'), '{"t":"x","s":"X"}');
  t.is(run('doc.a = doc.t.sub_string(1, 3); doc.b = doc.t.len; doc.c = doc.t.index_of("é"); doc.d = doc.t.split(" "); doc.e = doc.t[0];', '{"t":"héllo wörld"}'),
    '{"t":"héllo wörld","a":"éll","b":11,"c":1,"d":["héllo","wörld"],"e":"h"}');
  t.is(run('doc.a = "x" + 1 + true; doc.b = `${doc.n * 2} items: ${[1, 2]}`; doc.c = "a" < "b"; doc.d = "ell" in doc.t;', '{"n":2,"t":"hello"}'),
    '{"n":2,"t":"hello","a":"x1true","b":"4 items: [1, 2]","c":true,"d":true}');
  t.is(run('doc.t.pad(5, "-"); doc.c = doc.t.contains("ab") && doc.t.starts_with("a") && doc.t.ends_with("-");', '{"t":"ab"}'), '{"t":"ab---","c":true}');
});

test('control flow: if/else if, while, loop/break, for over ranges and arrays with an index, closures, functions, ??', (t) => {
  t.is(run(`
    let total = 0;
    for (x, i) in doc.list { total += x * i; }
    let n = 0;
    loop { n += 1; if n > 4 { break; } }
    while n < 10 { n += 2; if n == 8 { continue; } }
    for i in 1..=3 { total += i; }
    doc.total = total; doc.n = n;
    doc.kind = if total > 100 { "big" } else if total > 10 { "medium" } else { "small" };
    doc.evens = doc.list.filter(|x| x % 2 == 0).map(|x| x * 10);
    let limit = 2;
    doc.small = doc.list.filter(|x| x < limit);
    doc.missing = doc.nope ?? "default";
    fn square(x) { x * x }
    doc.sq = square(4);
    doc.sum = doc.list.reduce(|acc, x| acc + x, 0);
  `, '{"list":[1,2,3,4]}'), '{"list":[1,2,3,4],"evens":[20,40],"kind":"medium","missing":"default","n":11,"small":[1],"sq":16,"sum":10,"total":26}');
});

test('maps: missing properties are (), remove / contains / keys, computed keys, map literals', (t) => {
  t.is(run('doc.a = doc.nope == (); doc.b = doc.m.keys(); doc.c = doc.m.contains("k"); doc.m.remove("k"); doc["with space"] = 1;', '{"m":{"k":1,"j":2}}'),
    '{"m":{"j":2},"a":true,"b":["k","j"],"c":true,"with space":1}');
});

test('the context is a constant: readable, copied when stored, never changed', (t) => {
  t.is(run('doc.c = context.list; doc.c.push(2); doc.d = context.list;', '{}', { list: [1] }), '{"c":[1,2],"d":[1]}');
  t.is(runtimeError2('context.x = 1', { x: 0 }), 'Cannot modify constant context (line 1, position 1)');
  t.is(runtimeError2('context.list.push(1)', { list: [] }), "Non-pure method 'push' cannot be called on constant context (line 1, position 1)");
  t.is(runtimeError('doc.x = context.y'), 'Variable not found: context (line 1, position 9)');
});

function runtimeError2(source: string, context: Record<string, unknown>): string {
  try {
    editDocument(compileEditFunction(source), '{"id":1}', contextValue(context));
  } catch (cause) {
    if (cause instanceof RhaiRuntimeError) return cause.message;
    throw cause;
  }
  throw new Error('no error');
}

test('runtime errors as Rhai words them, with the line and position', (t) => {
  t.is(runtimeError('let x = y;'), 'Variable not found: y (line 1, position 9)');
  t.is(runtimeError('doc.x = doc.id.to_upper();'), 'Function not found: to_upper (i64) (line 1, position 16)');
  t.is(runtimeError('let a = [1]; a[3] = 1;'), 'Array index 3 out of bounds: array has 1 element (line 1, position 15)');
  t.is(runtimeError('if 1 { }'), 'Data type incorrect: i64 (expecting bool) (line 1, position 4)');
  t.is(runtimeError('throw "no";'), 'Runtime error: no (line 1, position 1)');
  t.is(runtimeError('let x = 1 < "a";'), 'Function not found: < (i64, string) (line 1, position 11)');
});

test('syntax errors as Rhai words them', (t) => {
  t.is(syntaxError('doc.title = '), 'Script is incomplete (line 1, position 13)');
  t.is(syntaxError('doc.a = 1 doc.b = 2'), "Expecting ';' to terminate this statement (line 1, position 11)");
  t.is(syntaxError('let x = "abc'), 'Open string is not terminated (line 1, position 9)');
  t.is(syntaxError('let = 1'), 'Expecting name of a variable (line 1, position 5)');
  t.is(syntaxError('1 + 2 = 3'), 'Expression cannot be assigned to (line 1, position 7)');
  t.is(syntaxError('let x = #{a: 1, a: 2};'), 'Duplicated property for object map literal: a (line 1, position 17)');
  t.is(syntaxError('let x = 1 @ 2;'), "Invalid symbol encountered: '@' (line 1, position 11)");
  t.regex(syntaxError('switch x { }'), /not supported/);
});

test('bounds: operations, string and array sizes, call depth, variables, nesting', (t) => {
  t.regex(runtimeError('loop { }'), /^Too many operations \(line 1, position 1\)$/);
  t.regex(runtimeError('let i = 0; while i >= 0 { i += 1; }'), /^Too many operations/);
  t.regex(runtimeError('let s = "x"; loop { s += s; }'), /^Length of string too large/);
  t.regex(runtimeError('let s = "x"; s.pad(100000000, "y");'), /^Length of string too large/);
  t.regex(runtimeError('let a = []; loop { a.push(0); }'), /^Size of array\/BLOB too large/);
  t.regex(runtimeError('let m = #{}; let i = 0; loop { m[`${i}`] = i; i += 1; }'), /^Size of object map too large/);
  t.regex(runtimeError('fn f(n) { f(n + 1) } f(0);'), /^Stack overflow/);
  t.regex(runtimeError(Array.from({ length: 1001 }, (_, i) => `let v${i} = ${i};`).join('')), /^Too many variables defined/);
  // Copies are charged: doubling a nested array runs out of operations, not memory.
  t.regex(runtimeError('let a = [1, 2, 3]; loop { a = [a, a]; }'), /^Too many operations/);
  // Work on big strings is charged by size: a million-character string cannot be rescanned a million times.
  t.regex(runtimeError('let s = "a"; s.pad(1000000, "b"); loop { let n = s.index_of("c"); }'), /^Too many operations/);
  t.regex(syntaxError(`let x = ${'['.repeat(1000)}${']'.repeat(1000)};`), /^Expression exceeds maximum complexity/);
  t.regex(syntaxError(`let x = ${'-'.repeat(1000)}1;`), /^Expression exceeds maximum complexity/);
  t.regex(syntaxError(`${'if true { '.repeat(200)}${'}'.repeat(200)}`), /^Expression exceeds maximum complexity/);
  // A tighter budget is honoured as given.
  t.regex(runtimeError('for i in 0..100 { }', '{}', { ...DEFAULT_RHAI_LIMITS, maxOperations: 50 }), /^Too many operations/);
});
