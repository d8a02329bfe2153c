// mapPacked is Array.prototype.map (random arrays of small integers, doubles, objects, empty ones),
// and its result stays packed once its caller is optimized by TurboFan, where an inlined `.map`
// returns a holey array (a second map for every reader of the result: the deopts of a cold start).
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mapPacked } from '../../src/ranking/packed-arrays.js';
import { randomFrom } from './seeded-lcg.js';

test('mapPacked gives what map gives, index included', (t) => {
  const random = randomFrom(33);
  for (let round = 0; round < 200; round++) {
    const length = Math.floor(random() * 12);
    const kind = round % 3;
    const items = Array.from({ length }, () => (kind === 0 ? Math.floor(random() * 100) : kind === 1 ? random() : { value: random() }));
    const f = (item: unknown, index: number) => (kind === 2 ? [index, item] : (item as number) * 2 + index);
    t.deepEqual(mapPacked(items, f), items.map(f));
  }
});

test('mapPacked returns a packed array from optimized code too', (t) => {
  const moduleUrl = new URL('../../src/ranking/packed-arrays.js', import.meta.url).href;
  // The caller optimized on its next call: its result read with V8's own element-kind check.
  const script = `import { mapPacked } from ${JSON.stringify(moduleUrl)};
function caller(items) { return mapPacked(items, (item) => item + 1); }
function plain(items) { return items.map((item) => item + 1); }
const direct = (items) => mapPacked(items, (item) => item + 1);
const out = {};
for (const [name, f] of [['caller', caller], ['plain', plain], ['mapPacked', mapPacked]]) {
  %PrepareFunctionForOptimization(f);
  const call = f === mapPacked ? direct : f;
  call([1, 2, 3]); call([4, 5]);
  %OptimizeFunctionOnNextCall(f);
  const result = call([6, 7, 8]);
  // Status bit 16: optimized (V8 runtime-test flags).
  out[name] = { holey: %HasHoleyElements(result), optimized: (%GetOptimizationStatus(f) & 16) !== 0 };
}
console.log(JSON.stringify(out));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8' })) as
    Record<'caller' | 'plain' | 'mapPacked', { holey: boolean; optimized: boolean }>;
  // The premise: an optimized `.map` gives a holey array on this V8 (if it no longer does, mapPacked can go).
  t.true(out.plain.optimized);
  t.true(out.plain.holey);
  t.true(out.caller.optimized);
  t.false(out.caller.holey);
  t.true(out.mapPacked.optimized);
  t.false(out.mapPacked.holey);
});
