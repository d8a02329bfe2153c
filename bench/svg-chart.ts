// A small SVG writer for the bench report: horizontal bar panels (one bar per engine) and line panels
// (a figure against dataset size), stacked in one self-contained file. Text only, no dependencies.

export interface Bar {
  label: string;
  value: number;
  /** Drawn in the accent colour (Skein), others in grey. */
  highlight?: boolean;
}

export interface BarPanel {
  kind: 'bars';
  title: string;
  unit: string;
  bars: Bar[];
}

export interface LineSeries {
  name: string;
  points: Array<{ x: number; y: number }>;
}

export interface LinePanel {
  kind: 'lines';
  title: string;
  xLabel: string;
  yLabel: string;
  series: LineSeries[];
  /** Logarithmic x axis (dataset sizes 10k/100k/1M). */
  logX?: boolean;
}

export type Panel = BarPanel | LinePanel;

export const chartWidth = 720;
const barHeight = 22;
const barGap = 6;
const panelPadding = 36;
const labelWidth = 120;
const valueWidth = 90;
const lineHeight = 240;
const palette = ['#2b6cb0', '#c05621', '#2f855a', '#6b46c1', '#b83280', '#718096'];

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Short human figure: 1234.5 -> "1,235", 0.123 -> "0.12". */
export function formatValue(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return String(Math.round(value * 100) / 100);
}

/** 10000 -> "10k", 1000000 -> "1M". */
export function formatCount(value: number): string {
  if (value >= 1e6 && value % 1e5 === 0) return `${value / 1e6}M`;
  if (value >= 1e3 && value % 100 === 0) return `${value / 1e3}k`;
  return String(value);
}

function text(x: number, y: number, content: string, attributes = ''): string {
  return `<text x="${round(x)}" y="${round(y)}"${attributes ? ' ' + attributes : ''}>${escapeXml(content)}</text>`;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

export function panelHeight(panel: Panel): number {
  return panel.kind === 'bars' ? panelPadding + Math.max(1, panel.bars.length) * (barHeight + barGap) + 12 : panelPadding + lineHeight + 40;
}

function renderBars(panel: BarPanel, top: number): string {
  const parts = [text(12, top + 22, `${panel.title} (${panel.unit})`, 'font-weight="bold"')];
  const max = Math.max(0, ...panel.bars.map((bar) => bar.value));
  const span = chartWidth - labelWidth - valueWidth - 24;
  panel.bars.forEach((bar, i) => {
    const y = top + panelPadding + i * (barHeight + barGap);
    const width = max > 0 && bar.value > 0 ? Math.max(1, (bar.value / max) * span) : 0;
    parts.push(text(labelWidth - 8, y + barHeight * 0.7, bar.label, 'text-anchor="end"'));
    parts.push(`<rect x="${labelWidth}" y="${round(y)}" width="${round(width)}" height="${barHeight}" fill="${bar.highlight ? palette[0] : palette[5]}"/>`);
    parts.push(text(labelWidth + width + 6, y + barHeight * 0.7, formatValue(bar.value)));
  });
  return parts.join('\n');
}

function renderLines(panel: LinePanel, top: number): string {
  const parts = [text(12, top + 22, panel.title, 'font-weight="bold"')];
  const points = panel.series.flatMap((series) => series.points);
  const left = 70;
  const right = chartWidth - 150;
  const plotTop = top + panelPadding;
  const bottom = plotTop + lineHeight;
  const scaleX = (x: number) => (panel.logX ? Math.log10(Math.max(x, 1)) : x);
  const xs = points.map((point) => scaleX(point.x));
  const minX = Math.min(...xs);
  const maxX = Math.max(...xs);
  const maxY = Math.max(0, ...points.map((point) => point.y)) || 1;
  const px = (x: number) => (maxX === minX ? (left + right) / 2 : left + ((scaleX(x) - minX) / (maxX - minX)) * (right - left));
  const py = (y: number) => bottom - (y / maxY) * lineHeight;
  parts.push(`<line x1="${left}" y1="${round(bottom)}" x2="${right}" y2="${round(bottom)}" stroke="#333"/>`);
  parts.push(`<line x1="${left}" y1="${round(plotTop)}" x2="${left}" y2="${round(bottom)}" stroke="#333"/>`);
  parts.push(text(left - 6, plotTop + 4, formatValue(maxY), 'text-anchor="end"'));
  parts.push(text(left - 6, bottom, '0', 'text-anchor="end"'));
  parts.push(text(12, plotTop + lineHeight / 2, panel.yLabel));
  parts.push(text((left + right) / 2, bottom + 34, panel.xLabel, 'text-anchor="middle"'));
  for (const x of [...new Set(points.map((point) => point.x))]) {
    parts.push(text(px(x), bottom + 16, formatCount(x), 'text-anchor="middle"'));
  }
  panel.series.forEach((series, i) => {
    const colour = palette[i % (palette.length - 1)];
    const sorted = [...series.points].sort((a, b) => a.x - b.x);
    if (sorted.length > 1) {
      parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${sorted.map((point) => `${round(px(point.x))},${round(py(point.y))}`).join(' ')}"/>`);
    }
    for (const point of sorted) parts.push(`<circle cx="${round(px(point.x))}" cy="${round(py(point.y))}" r="3" fill="${colour}"/>`);
    parts.push(`<rect x="${right + 16}" y="${round(plotTop + i * 20)}" width="12" height="12" fill="${colour}"/>`);
    parts.push(text(right + 34, plotTop + i * 20 + 11, series.name));
  });
  return parts.join('\n');
}

/** One SVG document with the panels stacked top to bottom. */
export function renderChart(title: string, panels: readonly Panel[]): string {
  let top = 40;
  const body: string[] = [text(12, 26, title, 'font-size="16" font-weight="bold"')];
  for (const panel of panels) {
    body.push(panel.kind === 'bars' ? renderBars(panel, top) : renderLines(panel, top));
    top += panelHeight(panel);
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${chartWidth}" height="${top + 10}" viewBox="0 0 ${chartWidth} ${top + 10}" font-family="sans-serif" font-size="12">\n` +
    `<rect width="100%" height="100%" fill="#fff"/>\n${body.join('\n')}\n</svg>\n`
  );
}
