// A chart drawn before plotly.js is there. plotly.js takes about a second to parse and run
// on a small machine, after the data of the first charts has arrived; in the meantime a
// chart's figure (the one plotly will draw) is drawn here as plain SVG: its lines in their
// colours, the axes with a few ticks, the axis titles. Read-only (no hover, no zoom): plotly
// replaces it as soon as it has drawn. Log axes, dates and markers wait for plotly.

import { fmtValue } from './format.js';

const NS = 'http://www.w3.org/2000/svg';
const MARGIN = { l: 58, r: 14, t: 10, b: 42 };

function el(name, attrs = {}, text = undefined) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** About five round ticks over [lo, hi]. */
export function niceTicks(lo, hi, count = 5) {
  if (!(hi > lo)) return Number.isFinite(lo) ? [lo] : [];
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

/** Ticks with SI prefixes, as plotly's exponentformat 'SI' reads them (10k, 2.5M). */
export function siTick(v) {
  const a = Math.abs(v);
  for (const [scale, suffix] of [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']]) {
    if (a >= scale) return `${+(v / scale).toPrecision(3)}${suffix}`;
  }
  return a === 0 || a >= 1e-3 ? `${+v.toPrecision(3)}` : fmtValue(v);
}

/** Whether ``figure`` can be drawn here: linear axes and line traces only. */
export function canQuickDraw(figure) {
  const { xaxis, yaxis } = figure.layout;
  return xaxis.type === 'linear' && yaxis.type === 'linear';
}

/** An SVG of ``figure`` (plotly's data and layout) ``width`` px wide. */
export function quickPlot(figure, width) {
  const height = figure.layout.height ?? 270;
  const lines = figure.data.filter((t) => t.type === 'scatter' && t.yaxis !== 'y2' && t.mode !== 'markers' && t.x?.length);
  const finite = (v) => v !== null && v !== undefined && Number.isFinite(v);
  let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const t of lines) {
    t.x.forEach((x, i) => {
      const y = t.y[i];
      if (!finite(x) || !finite(y)) return;
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    });
  }
  const yRange = figure.layout.yaxis.range;
  if (yRange) [y0, y1] = yRange;
  const svg = el('svg', { class: 'quick-plot', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': 'chart (drawing)' });
  if (!(x1 >= x0 && y1 >= y0)) return svg;
  if (x1 === x0) { x0 -= 1; x1 += 1; }
  if (y1 === y0) { y0 -= 1; y1 += 1; }
  const pad = (y1 - y0) * 0.05;
  y0 -= pad; y1 += pad;
  const w = width - MARGIN.l - MARGIN.r;
  const h = height - MARGIN.t - MARGIN.b;
  const px = (x) => MARGIN.l + ((x - x0) / (x1 - x0)) * w;
  const py = (y) => MARGIN.t + (1 - (y - y0) / (y1 - y0)) * h;
  const axes = el('g', { class: 'quick-axes', 'font-size': 11, fill: '#333' });
  for (const v of niceTicks(y0, y1)) {
    axes.append(el('line', { x1: MARGIN.l, x2: MARGIN.l + w, y1: py(v), y2: py(v), stroke: '#eee' }));
    axes.append(el('text', { x: MARGIN.l - 6, y: py(v) + 4, 'text-anchor': 'end' }, siTick(v)));
  }
  for (const v of niceTicks(x0, x1)) {
    axes.append(el('line', { x1: px(v), x2: px(v), y1: MARGIN.t, y2: MARGIN.t + h, stroke: '#eee' }));
    axes.append(el('text', { x: px(v), y: MARGIN.t + h + 15, 'text-anchor': 'middle' }, siTick(v)));
  }
  const title = figure.layout.xaxis.title?.text ?? '';
  axes.append(el('text', { x: MARGIN.l + w / 2, y: MARGIN.t + h + 32, 'text-anchor': 'middle' }, title));
  svg.append(axes);
  for (const t of lines) {
    let d = '';
    let pen = false;
    t.x.forEach((x, i) => {
      const y = t.y[i];
      if (!finite(x) || !finite(y)) { pen = false; return; }
      d += `${pen ? 'L' : 'M'}${px(x).toFixed(1)},${py(Math.min(Math.max(y, y0), y1)).toFixed(1)}`;
      pen = true;
    });
    svg.append(el('path', { d, fill: 'none', stroke: t.line?.color ?? '#888', 'stroke-width': t.line?.width ?? 1.5 }));
  }
  return svg;
}
