import test from 'ava';
import { escapeXml, formatCount, formatValue, renderChart, type Panel } from '../../bench/svg-chart.js';

/** Every opened element is closed (or self-closing) in order: enough to catch broken markup. */
function wellFormed(svg: string): boolean {
  const stack: string[] = [];
  for (const match of svg.matchAll(/<(\/?)([a-z]+)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = match;
    if (selfClosing) continue;
    if (closing) {
      if (stack.pop() !== name) return false;
    } else stack.push(name);
  }
  return stack.length === 0;
}

const bars: Panel = {
  kind: 'bars',
  title: 'default: queries/s',
  unit: 'higher is better',
  bars: [
    { label: 'skein', value: 500, highlight: true },
    { label: 'ceiling', value: 1000 },
    { label: 'broken <&>', value: 0 },
  ],
};

test('text is escaped and figures are short', (t) => {
  t.is(escapeXml('a<b & "c">'), 'a&lt;b &amp; &quot;c&quot;&gt;');
  t.is(formatValue(12345.6), '12,346');
  t.is(formatValue(0.1234), '0.12');
  t.is(formatValue(Number.NaN), 'n/a');
  t.is(formatCount(10_000), '10k');
  t.is(formatCount(1_000_000), '1M');
  t.is(formatCount(1234), '1234');
});

test('bar panels: one bar per engine, widths proportional to values, labels escaped', (t) => {
  const svg = renderChart('bench', [bars]);
  t.true(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
  t.true(wellFormed(svg));
  const widths = [...svg.matchAll(/<rect x="120" y="[\d.]+" width="([\d.]+)"/g)].map((match) => Number(match[1]));
  t.is(widths.length, 3);
  t.is(widths[1], widths[0] * 2);
  t.is(widths[2], 0);
  t.true(svg.includes('broken &lt;&amp;&gt;'));
  t.false(svg.includes('broken <&>'));
  t.true(svg.includes('fill="#2b6cb0"'), 'Skein stands out');
});

test('line panels plot each series against dataset size on a log axis', (t) => {
  const svg = renderChart('bench', [
    bars,
    {
      kind: 'lines',
      title: 'latency against size',
      xLabel: 'documents',
      yLabel: 'ms',
      logX: true,
      series: [
        { name: 'p50', points: [{ x: 10_000, y: 2 }, { x: 100_000, y: 4 }, { x: 1_000_000, y: 8 }] },
        { name: 'p99', points: [{ x: 1_000_000, y: 20 }, { x: 10_000, y: 5 }] },
      ],
    },
  ]);
  t.true(wellFormed(svg));
  const polylines = [...svg.matchAll(/points="([^"]+)"/g)].map((match) => match[1].split(' ').map((pair) => pair.split(',').map(Number)));
  t.is(polylines.length, 2);
  const [p50] = polylines;
  // Log scale: 10k -> 100k -> 1M are evenly spaced; y grows upwards (smaller SVG y).
  t.is(Math.round(p50[1][0] - p50[0][0]), Math.round(p50[2][0] - p50[1][0]));
  t.true(p50[2][1] < p50[0][1]);
  t.deepEqual(polylines[1].map(([x]) => x), [p50[0][0], p50[2][0]], 'points are sorted by size');
  for (const label of ['10k', '100k', '1M', 'p50', 'p99']) t.true(svg.includes(`>${label}</text>`), label);
});

test('an empty chart is still a valid document', (t) => {
  const svg = renderChart('nothing ran', []);
  t.true(wellFormed(svg));
  t.regex(svg, /height="\d+"/);
});
