// The Custom scalars tab (tensorboardX's add_custom_scalars, /api/scalar_layout): one
// collapsible section per category, one chart per layout chart. A multiline chart draws
// every tag its regular expressions find, for every selected run, in one plot (the Scalars
// toolbar's smoothing and axes apply); a margin chart draws a value tag with a band between
// its lower and upper tags, per run, aligned by step.

import { fetchJSON, getJSON } from './api.js';
import { CardGrid } from './cardgrid.js';
import { h } from './dom.js';
import { withAlpha } from './colors.js';
import { escPlotly } from './format.js';
import { LazyCard } from './card.js';
import { scheduleRender } from './renderqueue.js';
import { buildFigure, expandJobs } from './scalarfigure.js';

const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['select2d', 'lasso2d'] };

/** A margin chart's traces: per run the band (lower to upper, where both exist) and the value line. */
export function marginTraces(triples, seriesOf, colorOf) {
  const data = [];
  for (const [value, lower, upper] of triples) {
    for (const [run, v] of seriesOf(value)) {
      const lo = new Map(seriesOf(lower).get(run)?.steps.map((s, i) => [s, seriesOf(lower).get(run).values[i]]) ?? []);
      const hi = new Map(seriesOf(upper).get(run)?.steps.map((s, i) => [s, seriesOf(upper).get(run).values[i]]) ?? []);
      const color = colorOf(run);
      const at = (m) => v.steps.map((s) => (m.has(s) ? m.get(s) : null));
      const name = `${escPlotly(value)} · ${escPlotly(run)}`;
      data.push(
        { type: 'scatter', mode: 'lines', x: v.steps, y: at(lo), line: { width: 0, color }, showlegend: false, hoverinfo: 'skip',
          connectgaps: false, meta: { run, tag: lower, kind: 'lower' } },
        { type: 'scatter', mode: 'lines', x: v.steps, y: at(hi), line: { width: 0, color }, fill: 'tonexty',
          fillcolor: withAlpha(color, 0.2), showlegend: false, hoverinfo: 'skip', connectgaps: false, meta: { run, tag: upper, kind: 'upper' } },
        { type: 'scatter', mode: 'lines', x: v.steps, y: v.values, name, line: { color, width: 1.8 }, meta: { run, tag: value, kind: 'value' },
          hovertemplate: `<b>${name}</b> · step %{x} · %{y:.6g}<extra></extra>` },
      );
    }
  }
  return data;
}

class LayoutChart extends LazyCard {
  constructor(chart, ctx) {
    super();
    this.chart = chart;
    this.ctx = ctx;
    this.plot = h('div', { class: 'plot', 'aria-label': `chart ${chart.title}` });
    this.note = h('div', { class: 'card-note' });
    this.error = h('div', { class: 'card-error', role: 'alert', hidden: true });
    // A pattern the server could not use (it names the pattern and why): shown on the chart
    // from the start, whatever its tags draw.
    this.problem = h('div', { class: 'card-error layout-problem', role: 'alert', hidden: !chart.errors.length },
      chart.errors.join(' '));
    this.el = h('article', { class: 'card chart-card layout-card', dataset: { title: chart.title, state: 'idle' } },
      h('header', { class: 'card-head' }, h('h3', { class: 'card-title', title: chart.title }, chart.title)), this.problem,
      this.plot, this.note, this.error);
  }

  /** The runs the chart draws changed (a run appeared, the selection changed): fetch again. */
  setRuns(signature) {
    if (signature === this.runsSignature) return;
    this.runsSignature = signature;
    this.stale = true;
    if (this.active) this.load();
  }

  /** One /api/scalars request per tag, for the selected runs having it. */
  async fetch(signal) {
    const byTag = this.ctx.state.tags.scalars || {};
    const selected = this.ctx.selectedRuns();
    const tags = this.chart.tags.filter((t) => byTag[t]);
    const answers = await Promise.all(tags.map((tag) => {
      const runs = byTag[tag].filter((r) => selected.has(r));
      return runs.length ? fetchJSON('scalars', { tag, run: runs }, { signal }).then((r) => r.body) : null;
    }));
    const body = { tags, answers: answers.filter(Boolean) };
    return { body, text: JSON.stringify(body) };
  }

  show(body) {
    this.body = body;
    scheduleRender(this, () => this.draw());
    return true;
  }

  draw() {
    const { answers } = this.body;
    const missing = this.chart.tags.filter((t) => !answers.some((a) => a.tag === t));
    const notes = [];
    if (missing.length) notes.push(`No data for: ${missing.join(', ')}.`);
    if (!this.chart.tags.length) notes.push('No scalar tag matches this chart.');
    this.note.textContent = notes.join(' ');
    let data;
    let layout;
    if (this.chart.margin.length) {
      const index = new Map(answers.map((a) => [a.tag, new Map(a.runs.map((r) => [r.run, r]))]));
      data = marginTraces(this.chart.margin, (tag) => index.get(tag) ?? new Map(), this.ctx.colorOf);
      layout = { height: 300, margin: { l: 58, r: 14, t: 10, b: 42 }, showlegend: true, legend: { orientation: 'h', y: -0.2 },
        xaxis: { title: { text: 'step' }, gridcolor: '#eee' }, yaxis: { gridcolor: '#eee', exponentformat: 'SI' } };
    } else {
      // Every (tag, run) a line of its own, named so; a job drawn as its mean.
      const series = answers.flatMap((a) => expandJobs(a.runs, false).map((s) => ({
        ...s, run: `${a.tag} · ${s.run}`, colorKey: `${a.tag} · ${s.run}`, job: s.job ?? s.run,
      })));
      const fig = buildFigure(series, { ...this.ctx.scalar, colorOf: undefined, runColor: () => undefined,
        runStart: (run) => this.ctx.runStart(run), zoomX: null, zoomY: null, uirevision: 1 });
      ({ data, layout } = fig);
    }
    Plotly.react(this.plot, data, layout, CONFIG).then(() => { this.el.dataset.state = 'ready'; });
    this.plotted = true;
  }

}

export class LayoutsView {
  constructor(panel, ctx) {
    this.ctx = ctx;
    this.grid = new CardGrid(panel.querySelector('.grid-root'));
    this.empty = panel.querySelector('.empty');
    this.closedOnce = new Set();
  }

  async update() {
    try {
      this.layout = await getJSON('scalar_layout');
    } catch (error) {
      this.empty.textContent = `Cannot load the layouts: ${error.message}`;
      this.empty.hidden = false;
      return;
    }
    const items = [];
    for (const category of this.layout.categories) {
      for (const chart of category.charts) items.push({ key: `${category.title}\u0000${chart.title}\u0000${JSON.stringify(chart.tags)}`, group: category.title, chart });
    }
    for (const category of this.layout.categories) {
      if (category.closed && !this.closedOnce.has(category.title)) { // closed as the layout says, until opened
        this.closedOnce.add(category.title);
        this.grid.group(category.title).open = false;
      }
    }
    this.empty.textContent = items.length ? '' : this.ctx.emptyText('custom scalar layout', 0);
    this.empty.hidden = items.length > 0;
    // A chart fetches again when the runs having its tags, or the selection of them, change.
    const byTag = this.ctx.state.tags.scalars || {};
    const selected = this.ctx.selectedRuns();
    const runsOf = (chart) => JSON.stringify(chart.tags.map((t) => (byTag[t] || []).filter((r) => selected.has(r))));
    this.grid.setItems(items, (item) => {
      const card = new LayoutChart(item.chart, this.ctx);
      card.runsSignature = runsOf(item.chart);
      return card;
    }, (card, item) => card.setRuns(runsOf(item.chart)));
  }

  refresh() {
    return this.grid.refresh();
  }
}
