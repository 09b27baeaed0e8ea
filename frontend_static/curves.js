// The PR curves and ROC curves tabs: one card per tag, the selected runs overlaid, a step
// slider over the steps the runs have (each run drawn at its nearest step at or before the
// one chosen), the threshold and the counts under the cursor, and the area under each
// run's curve in the legend.

import { fetchJSON } from './api.js';
import { CardGrid, tagItems } from './cardgrid.js';
import { h } from './dom.js';
import { escPlotly } from './format.js';
import { LazyCard } from './card.js';
import { scheduleRender } from './renderqueue.js';

const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['select2d', 'lasso2d'] };
const TITLES = { recall: 'recall', precision: 'precision', fpr: 'false positive rate', tpr: 'true positive rate' };

/** The plotly traces of a /api/curves answer: one line per run, hover naming the threshold. */
export function curveTraces(body, colorOf) {
  return body.runs.filter((r) => r.step !== null).map((r) => {
    const x = r[body.x];
    const y = r[body.y];
    const custom = r.thresholds.map((t, i) => [t, r.tp[i], r.fp[i], r.tn[i], r.fn[i]]);
    const auc = r.auc === null ? 'n/a' : r.auc.toFixed(4);
    return {
      type: 'scatter', mode: 'lines+markers', x, y, customdata: custom, connectgaps: false,
      name: `${escPlotly(r.run)} · step ${r.step} · AUC ${auc}`, meta: { run: r.run, step: r.step, auc: r.auc },
      line: { color: colorOf(r.run), width: 1.8, shape: 'linear' }, marker: { size: 4, color: colorOf(r.run) },
      hovertemplate: `<b>${escPlotly(r.run)}</b> · threshold %{customdata[0]:.4g}<br>${body.x} %{x:.4f} · ${body.y} %{y:.4f}`
        + '<br>TP %{customdata[1]} · FP %{customdata[2]} · TN %{customdata[3]} · FN %{customdata[4]}<extra></extra>',
    };
  });
}

class CurveCard extends LazyCard {
  constructor(kind, tag, ctx) {
    super();
    this.kind = kind;
    this.tag = tag;
    this.ctx = ctx;
    this.runs = [];
    this.step = null; // null: each run's newest
    this.steps = [];
    this.plot = h('div', { class: 'plot', 'aria-label': `${tag} curves` });
    this.slider = h('input', { type: 'range', class: 'step-slider', min: 0, max: 0, step: 1, 'aria-label': `Step of ${tag}` });
    this.slider.addEventListener('change', () => {
      this.step = this.steps[Number(this.slider.value)] ?? null;
      this.load();
    });
    this.caption = h('div', { class: 'caption', 'aria-live': 'polite' });
    this.error = h('div', { class: 'card-error', role: 'alert', hidden: true });
    this.el = h('article', { class: 'card chart-card curve-card', dataset: { tag, state: 'idle' } },
      h('header', { class: 'card-head' }, h('h3', { class: 'card-title', title: tag }, tag)),
      this.plot, h('div', { class: 'image-controls' }, this.slider), this.caption, this.error);
  }

  setRuns(runs) {
    if (runs.length === this.runs.length && runs.every((r, i) => r === this.runs[i])) return;
    this.runs = runs;
    this.stale = true;
    if (this.active) this.load();
  }

  fetch(signal) {
    return fetchJSON('curves', { kind: this.kind, tag: this.tag, run: this.runs, step: this.step ?? undefined }, { signal });
  }

  show(body) {
    this.body = body;
    this.steps = body.steps;
    const at = this.step === null ? this.steps.length - 1 : Math.max(0, this.steps.indexOf(this.step));
    this.slider.max = String(Math.max(this.steps.length - 1, 0));
    this.slider.value = String(at);
    this.slider.disabled = this.steps.length <= 1;
    this.el.dataset.step = String(this.steps[at] ?? '');
    const shown = this.step === null ? 'newest step of each run' : `step ${this.step} (each run at its nearest step before)`;
    this.caption.textContent = `${shown}${body.missing.length ? ` · no such curve: ${body.missing.join(', ')}` : ''}`;
    scheduleRender(this, () => this.draw());
    return true;
  }

  draw() {
    if (!this.body) return;
    const data = curveTraces(this.body, this.ctx.colorOf);
    const axis = (name) => ({ title: { text: TITLES[name] }, range: [-0.02, 1.02], gridcolor: '#eee', zeroline: false });
    const layout = {
      height: 330, margin: { l: 58, r: 14, t: 10, b: 42 }, showlegend: true,
      legend: { orientation: 'h', y: -0.22, font: { size: 10 } }, hovermode: 'closest',
      xaxis: axis(this.body.x), yaxis: axis(this.body.y), font: { size: 11 },
    };
    Plotly.react(this.plot, data, layout, CONFIG).then(() => { this.el.dataset.state = 'ready'; });
    this.plotted = true;
  }

}

export class CurvesView {
  /** kind: 'pr_curves' or 'roc_curves', the /api/tags key. */
  constructor(panel, ctx, kind) {
    this.ctx = ctx;
    this.kind = kind;
    this.grid = new CardGrid(panel.querySelector('.grid-root'));
    this.empty = panel.querySelector('.empty');
  }

  update() {
    const { items, tags } = tagItems(this.ctx, this.kind);
    const noun = this.kind === 'pr_curves' ? 'PR curve' : 'ROC curve';
    this.empty.textContent = items.length ? '' : this.ctx.emptyText(noun, tags);
    this.empty.hidden = items.length > 0;
    this.grid.setItems(items, (item) => {
      const card = new CurveCard(this.kind, item.tag, this.ctx);
      card.setRuns(item.runs);
      return card;
    }, (card, item) => card.setRuns(item.runs));
  }

  refresh() {
    return this.grid.refresh();
  }
}
