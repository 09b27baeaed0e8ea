// The rank x time heatmap of a job (/api/job/heatmap): one pixel row per rank (or a few
// pixels when there are few ranks), one column per cell of the job's time grid, drawn on a
// canvas from the answer's bytes, with restarts and process ends as marks. 10,000 ranks
// are one canvas, not 10,000 elements; hovering names the rank, the time and the value.

import { getJSON } from './api.js';
import { h } from './dom.js';
import { fmtValue, fmtWall } from './format.js';

const MISSING = 255;
const CELL_WIDTH = 3; // pixels per column (240 columns: 717 px)
const TALL = 480; // rows get more than one pixel until the ranks fill this height
const MAX_ROW_PX = 14;
const MISSING_RGB = [238, 238, 238];
const MARKS = { restart: '#1565c0', end: '#c62828' };
// Viridis' stops, the lowest value dark purple, the highest yellow.
const STOPS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

/** 255 RGB entries of the colour scale, byte 0 (the minimum) to 254 (the maximum). */
export function colorScale() {
  const out = [];
  for (let q = 0; q < MISSING; q++) {
    const at = (q / (MISSING - 1)) * (STOPS.length - 1);
    const i = Math.min(Math.floor(at), STOPS.length - 2);
    const f = at - i;
    out.push(STOPS[i].map((c, k) => Math.round(c + (STOPS[i + 1][k] - c) * f)));
  }
  return out;
}
const SCALE = colorScale();
/** The system metrics the server draws heatmaps of (server/_views/heatmap.py SYSTEM_HEATMAPS). */
const SYSTEM_HEATMAPS = ['gpu/utilization', 'gpu/memory_used', 'process/cpu_user', 'process/rss', 'host/cpu', 'host/memory_used'];

/** The value a byte stands for (null: none). */
export function valueOf(body, byte) {
  if (byte === MISSING || body.min === null) return null;
  return body.min + (byte / (MISSING - 1)) * (body.max - body.min);
}

function decode(base64) {
  const text = atob(base64);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

export class JobHeatmap {
  /** Mounts its card at the end of `parent` (the job page's grid). */
  constructor(parent) {
    this.role = h('select', { 'aria-label': 'Role of the heatmap' });
    this.metric = h('select', { 'aria-label': 'Metric of the heatmap' });
    this.title = h('strong', {}, 'Throughput per rank over time (steps/s)');
    this.canvas = h('canvas', { class: 'job-heatmap-canvas', 'aria-label': 'throughput per rank over time' });
    this.tip = h('div', { class: 'job-heatmap-tip', hidden: true });
    this.scale = h('canvas', { class: 'job-heatmap-scale', width: 160, height: 10 });
    this.low = h('span', { class: 'muted' });
    this.high = h('span', { class: 'muted' });
    this.note = h('span', { class: 'muted' });
    this.el = h('div', { class: 'card wide job-heatmap', id: 'job-heatmap' },
      h('div', { class: 'job-heatmap-head' },
        this.title, this.metric, this.role,
        this.low, this.scale, this.high, this.note),
      h('div', { class: 'job-heatmap-wrap' }, this.canvas, this.tip));
    parent.append(this.el);
    this.body = null;
    this.run = null;
    this.seq = 0;
    this.role.addEventListener('change', () => this.load());
    this.metric.addEventListener('change', () => this.load());
    this.canvas.addEventListener('mousemove', (event) => this.hover(event));
    this.canvas.addEventListener('mouseleave', () => { this.tip.hidden = true; });
    const ctx = this.scale.getContext('2d');
    for (let x = 0; x < 160; x++) {
      const [r, g, b] = SCALE[Math.round((x / 159) * (MISSING - 1))];
      ctx.fillStyle = `rgb(${r},${g},${b})`;
      ctx.fillRect(x, 0, 1, 10);
    }
  }

  /** Show `run`'s heatmap for one of `roles` (the one chosen, else the first), of throughput
   * or of one of the job's `system` metrics (/api/job's list) the server draws. */
  show(run, roles, system = []) {
    const metrics = ['steps_per_second', ...system.map((m) => m.metric).filter((m) => SYSTEM_HEATMAPS.includes(m))];
    const had = [...this.metric.options].map((o) => o.value);
    if (metrics.join('\n') !== had.join('\n')) {
      const chosen = this.metric.value;
      this.metric.replaceChildren(...metrics.map((m) => h('option', { value: m }, m === 'steps_per_second' ? 'throughput' : m)));
      this.metric.value = metrics.includes(chosen) ? chosen : metrics[0];
    }
    const current = [...this.role.options].map((o) => o.value);
    if (roles.join('\n') !== current.join('\n')) this.role.replaceChildren(...roles.map((r) => h('option', { value: r }, r)));
    if (!roles.includes(this.role.value)) this.role.value = roles[0] ?? '';
    this.run = run;
    this.load();
  }

  async load() {
    if (!this.run || !this.role.value) return;
    const seq = ++this.seq;
    try {
      const metric = this.metric.value || 'steps_per_second';
      const body = await getJSON('job/heatmap', { run: this.run, role: this.role.value, metric });
      if (seq === this.seq) this.draw(body);
    } catch (error) {
      if (seq === this.seq) this.note.textContent = `Cannot load the heatmap: ${error.message}`;
    }
  }

  draw(body) {
    this.body = body;
    const what = body.metric === 'steps_per_second' ? 'Throughput' : body.metric;
    this.title.textContent = `${what} per rank over time (${body.unit})`;
    const rows = body.rows.length;
    const cols = body.columns;
    this.bytes = decode(body.values);
    this.rowPx = Math.max(1, Math.min(MAX_ROW_PX, Math.floor(TALL / Math.max(rows, 1))));
    const width = cols * CELL_WIDTH;
    const height = Math.max(1, rows * this.rowPx);
    // The cells at one pixel each, then scaled up without smoothing: one row per rank, exactly.
    const cells = document.createElement('canvas');
    cells.width = Math.max(1, cols);
    cells.height = Math.max(1, rows);
    const ctx = cells.getContext('2d');
    const image = ctx.createImageData(cells.width, cells.height);
    const px = image.data;
    for (let i = 0; i < this.bytes.length; i++) {
      const [r, g, b] = this.bytes[i] === MISSING ? MISSING_RGB : SCALE[this.bytes[i]];
      px[4 * i] = r;
      px[4 * i + 1] = g;
      px[4 * i + 2] = b;
      px[4 * i + 3] = 255;
    }
    ctx.putImageData(image, 0, 0);
    this.canvas.width = width;
    this.canvas.height = height;
    Object.assign(this.canvas.dataset, { rows: String(rows), columns: String(cols), rowPx: String(this.rowPx), cellWidth: String(CELL_WIDTH) });
    const out = this.canvas.getContext('2d');
    out.imageSmoothingEnabled = false;
    out.drawImage(cells, 0, 0, width, height);
    this.drawMarks(out, width);
    this.low.textContent = body.min === null ? 'no value' : fmtValue(body.min);
    this.high.textContent = body.max === null ? '' : `${fmtValue(body.max)} ${body.unit}`;
    const restarts = body.overlays.kind.filter((k) => k === 'restart').length;
    this.note.textContent = `${rows} rank${rows === 1 ? '' : 's'} · marks: restart (blue), file ended (red)${restarts ? ` · ${restarts} restart${restarts === 1 ? '' : 's'}` : ''}`;
  }

  /** A tick at each overlay: where a rank's file ended (red) or its next attempt started (blue). */
  drawMarks(ctx, width) {
    const { times, overlays } = this.body;
    const t0 = times[0];
    const span = times[times.length - 1] - t0 || 1;
    for (let i = 0; i < overlays.row.length; i++) {
      const x = Math.min(width - 2, Math.max(0, Math.round(((overlays.time[i] - t0) / span) * width)));
      ctx.fillStyle = MARKS[overlays.kind[i]] ?? '#000';
      ctx.fillRect(x, overlays.row[i] * this.rowPx, 2, Math.max(1, this.rowPx));
    }
  }

  hover(event) {
    const body = this.body;
    if (!body) return;
    const box = this.canvas.getBoundingClientRect();
    const x = ((event.clientX - box.left) / box.width) * this.canvas.width;
    const y = ((event.clientY - box.top) / box.height) * this.canvas.height;
    const col = Math.floor(x / CELL_WIDTH);
    const row = Math.floor(y / this.rowPx);
    if (col < 0 || col >= body.columns || row < 0 || row >= body.rows.length) {
      this.tip.hidden = true;
      return;
    }
    const value = valueOf(body, this.bytes[row * body.columns + col]);
    const at = (body.times[col] + body.times[col + 1]) / 2;
    const marks = [];
    for (let i = 0; i < body.overlays.row.length; i++) {
      if (body.overlays.row[i] === row && body.overlays.time[i] >= body.times[col] && body.overlays.time[i] <= body.times[col + 1]) {
        marks.push(body.overlays.text[i]);
      }
    }
    this.tip.textContent = [`${body.role} ${body.rows[row]}`, fmtWall(at),
      value === null ? 'no value' : `${fmtValue(value)} ${body.unit}`, ...marks].join(' · ');
    this.tip.style.left = `${event.clientX - box.left + 12}px`;
    this.tip.style.top = `${event.clientY - box.top + 12}px`;
    this.tip.hidden = false;
  }
}
