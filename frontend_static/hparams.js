// The Hyperparameters tab (/api/hparams): a table of runs by hyperparameter and metric that
// sorts on any column and filters, a parallel-coordinates plot coloured by a metric, and a
// scatter matrix of hyperparameters against metrics. Ticking rows and "Show in Scalars"
// makes exactly those runs the app's selection, so the scalar charts draw them.

import { getJSON } from './api.js';
import { button, compileFilter, h, naturalCompare } from './dom.js';
import { escPlotly, fmtValue } from './format.js';
import { scheduleRender } from './renderqueue.js';

const CONFIG = { displaylogo: false, responsive: true };

/** A cell's value to sort by and to show: numbers as numbers, booleans and strings as text. */
function cell(value) {
  if (value === null || value === undefined) return { sort: null, text: '—' };
  if (typeof value === 'number') return { sort: value, text: fmtValue(value) };
  return { sort: String(value), text: String(value) };
}

/** Rows sorted by `key` (nulls last in both directions; numbers numerically, text naturally). */
export function sortRows(rows, key, descending) {
  const sign = descending ? -1 : 1;
  return rows.slice().sort((a, b) => {
    const x = a.cells[key]?.sort ?? null;
    const y = b.cells[key]?.sort ?? null;
    if (x === null || y === null) return (x === null) - (y === null) || naturalCompare(a.run, b.run);
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : naturalCompare(String(x), String(y));
    return sign * order || naturalCompare(a.run, b.run);
  });
}

export class HParamsView {
  constructor(panel, ctx) {
    this.ctx = ctx;
    this.panel = panel;
    this.data = null;
    this.sortKey = null;
    this.descending = false;
    this.chosen = new Set();
    this.brush = new Map(); // a parallel-coordinates axis label -> its brushed range(s)
    this.filter = compileFilter('');
    this.empty = panel.querySelector('.empty');
    this.filterBox = h('input', { type: 'search', placeholder: 'Filter rows (regex over every cell)', 'aria-label': 'Filter runs' });
    this.filterBox.addEventListener('input', () => {
      this.filter = compileFilter(this.filterBox.value);
      this.renderTable();
    });
    this.colorBy = h('select', { 'aria-label': 'Colour lines by metric' });
    this.colorBy.addEventListener('change', () => this.renderPlots());
    this.apply = button('Show in Scalars', () => this.applySelection(), { disabled: true, title: 'Select the ticked runs in every view' });
    this.count = h('span', { class: 'muted' });
    this.table = h('table', { class: 'hparams-table' });
    this.parcoords = h('div', { class: 'plot', 'aria-label': 'parallel coordinates' });
    this.splom = h('div', { class: 'plot', 'aria-label': 'scatter matrix' });
    this.body = h('div', { class: 'hparams-body', hidden: true },
      h('div', { class: 'toolbar' }, this.filterBox, h('label', {}, 'Colour by ', this.colorBy), this.apply, this.count),
      h('div', { class: 'table-wrap card' }, this.table),
      h('div', { class: 'card' }, this.parcoords),
      h('div', { class: 'card' }, this.splom));
    panel.append(this.body);
  }

  /** Once the plots exist: brushing an axis of the parallel coordinates, or selecting points
   * in the scatter matrix, ticks the runs inside (and only those), as ticking rows would. */
  listen() {
    if (this.listening || !this.parcoords.on || !this.splom.on) return;
    this.listening = true;
    this.parcoords.on('plotly_restyle', () => this.brushed());
    this.splom.on('plotly_selected', (event) => this.selected(event));
  }

  /** Tick the runs inside every brushed axis range of the parallel coordinates. */
  brushed() {
    const trace = this.parcoords.data?.[0];
    if (!trace || !this.data) return;
    this.brush = new Map();
    for (const d of trace.dimensions) if (d.constraintrange?.length) this.brush.set(d.label, d.constraintrange);
    if (!this.brush.size) return;
    const inside = (v, range) => (Array.isArray(range[0]) ? range : [range]).some(([lo, hi]) => v >= lo && v <= hi);
    const runs = trace.meta.runs.filter((_, i) => trace.dimensions.every((d) => !this.brush.has(d.label)
      || inside(d.values[i], this.brush.get(d.label))));
    this.choose(runs);
  }

  /** Tick the runs of the points selected in the scatter matrix. */
  selected(event) {
    if (!event?.points || !this.data) return;
    this.choose([...new Set(event.points.map((p) => this.data.runs[p.pointIndex]?.run).filter(Boolean))]);
  }

  choose(runs) {
    this.chosen = new Set(runs);
    this.renderTable();
  }

  async update() {
    if (!Object.keys(this.ctx.state.tags.hparams || {}).length) {
      this.empty.textContent = this.ctx.emptyText('hyperparameter', 0);
      this.empty.hidden = false;
      this.body.hidden = true;
      return;
    }
    await this.refresh();
  }

  async refresh() {
    try {
      const data = await getJSON('hparams');
      const text = JSON.stringify(data);
      if (text === this.lastText) return;
      this.lastText = text;
      this.data = data;
      this.empty.hidden = true;
      this.body.hidden = false;
      this.build();
    } catch (error) {
      this.empty.textContent = `Cannot load the hyperparameters: ${error.message}`;
      this.empty.hidden = false;
    }
  }

  columns() {
    const { hparams, metrics } = this.data;
    return [
      ...hparams.map((p) => ({ key: `h:${p.name}`, title: p.name, kind: 'hparam', meta: p })),
      ...metrics.map((m) => ({ key: `m:${m}`, title: m, kind: 'metric' })),
    ];
  }

  rows() {
    return this.data.runs.map((r) => {
      const cells = {};
      for (const [name, value] of Object.entries(r.hparams)) cells[`h:${name}`] = cell(value);
      for (const [tag, m] of Object.entries(r.metrics)) {
        cells[`m:${tag}`] = m === null ? cell(null) : m.last === null ? { sort: null, text: m.last_nonfinite } : cell(m.last);
      }
      return { run: r.run, cells, raw: r };
    });
  }

  build() {
    const metrics = this.data.metrics;
    const current = this.colorBy.value;
    this.colorBy.replaceChildren(...metrics.map((m) => h('option', { value: m, selected: m === current }, m)));
    this.renderTable();
    this.renderPlots();
  }

  renderTable() {
    const columns = this.columns();
    let rows = this.rows();
    if (this.filter.re) rows = rows.filter((r) => this.filter.re.test(r.run) || Object.values(r.cells).some((c) => this.filter.re.test(c.text)));
    if (this.sortKey) rows = sortRows(rows, this.sortKey, this.descending);
    const head = h('tr', {}, h('th', { scope: 'col' }, ''), h('th', { scope: 'col' }, 'Run'), ...columns.map((c) => {
      const sorted = this.sortKey === c.key;
      return h('th', { scope: 'col', class: c.kind, 'aria-sort': sorted ? (this.descending ? 'descending' : 'ascending') : 'none' },
        button(`${c.title}${sorted ? (this.descending ? ' ▼' : ' ▲') : ''}`, () => {
          this.descending = this.sortKey === c.key ? !this.descending : false;
          this.sortKey = c.key;
          this.renderTable();
        }, { class: 'sort', title: `Sort by ${c.title}` }));
    }));
    const body = rows.map((r) => {
      const box = h('input', { type: 'checkbox', checked: this.chosen.has(r.run), 'aria-label': `Select ${r.run}` });
      box.addEventListener('change', () => {
        if (box.checked) this.chosen.add(r.run);
        else this.chosen.delete(r.run);
        this.updateCount();
      });
      const tr = h('tr', { dataset: { run: r.run } }, h('td', {}, box),
        h('td', { class: 'run' }, h('span', { class: 'swatch', style: { background: this.ctx.colorOf(r.run) } }), r.run),
        ...columns.map((c) => h('td', { class: c.kind }, r.cells[c.key]?.text ?? '—')));
      tr.addEventListener('mouseenter', () => this.highlight(r.run));
      tr.addEventListener('mouseleave', () => this.highlight(null));
      return tr;
    });
    this.table.replaceChildren(h('thead', {}, head), h('tbody', {}, ...body));
    this.updateCount();
  }

  updateCount() {
    this.apply.disabled = this.chosen.size === 0;
    this.count.textContent = `${this.chosen.size} of ${this.data.runs.length} runs ticked`;
  }

  applySelection() {
    const state = this.ctx.state;
    state.deselected = new Set(state.runs.map((r) => r.name).filter((name) => !this.chosen.has(name)));
    this.ctx.selectionChanged();
    location.hash = '#scalars';
  }

  /** One axis per hyperparameter and metric; text values as ordinal ticks. */
  dimensions() {
    const runs = this.data.runs;
    const dims = [];
    for (const p of this.data.hparams) {
      const values = runs.map((r) => r.hparams[p.name]);
      if (p.type === 'number') dims.push({ label: escPlotly(p.name), values: values.map((v) => v ?? NaN) });
      else {
        const ticks = p.values.map(String);
        dims.push({ label: escPlotly(p.name), values: values.map((v) => ticks.indexOf(String(v))),
          tickvals: ticks.map((_, i) => i), ticktext: ticks.map(escPlotly) });
      }
    }
    for (const m of this.data.metrics) dims.push({ label: escPlotly(m), values: runs.map((r) => r.metrics[m]?.last ?? NaN) });
    for (const d of dims) if (this.brush.has(d.label)) d.constraintrange = this.brush.get(d.label); // kept over live updates
    return dims;
  }

  renderPlots() {
    if (!this.data) return;
    scheduleRender(this, () => {
      const dims = this.dimensions();
      const metric = this.colorBy.value;
      const color = this.data.runs.map((r) => r.metrics[metric]?.last ?? NaN);
      Plotly.react(this.parcoords, [{
        type: 'parcoords', dimensions: dims, meta: { runs: this.data.runs.map((r) => r.run) },
        line: { color, colorscale: 'Viridis', showscale: true, colorbar: { title: { text: escPlotly(metric || '') } } },
      }], { height: 340, margin: { l: 60, r: 60, t: 40, b: 30 } }, CONFIG);
      Plotly.react(this.splom, [{
        type: 'splom', dimensions: dims.map((d) => ({ label: d.label, values: d.values })),
        text: this.data.runs.map((r) => escPlotly(r.run)), marker: { color, colorscale: 'Viridis', size: 7 },
        hovertemplate: '%{text}<extra></extra>', showupperhalf: false, diagonal: { visible: false },
      }], { height: 140 * Math.min(dims.length, 6) + 60, margin: { l: 60, r: 20, t: 20, b: 40 }, dragmode: 'select' }, CONFIG)
        .then(() => this.listen());
    });
  }

  highlight(run) {
    for (const tr of this.table.querySelectorAll('tbody tr')) tr.classList.toggle('hot', tr.dataset.run === run);
  }
}
