// A histogram card: one tag of one run in offset, overlay or distribution mode.

import { fetchJSON } from './api.js';
import { h, runChip } from './dom.js';
import { LazyCard } from './card.js';
import { distributionFigure, nonfiniteNote, offsetFigure, overlayFigure } from './histfigure.js';
import { scheduleRender } from './renderqueue.js';

const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['select2d', 'lasso2d'] };
export const MODES = { offset: 'Offset', overlay: 'Overlay', distribution: 'Distribution' };

export class HistogramCard extends LazyCard {
  constructor(tag, run, ctx) {
    super();
    this.tag = tag;
    this.run = run;
    this.ctx = ctx;
    this.mode = ctx.histogramMode;
    this.plot = h('div', { class: 'plot' });
    this.note = h('div', { class: 'card-note' });
    this.error = h('div', { class: 'card-error', role: 'alert', hidden: true });
    this.el = h('article', { class: 'card histogram-card', dataset: { tag, run, state: 'idle', mode: this.mode } },
      h('header', { class: 'card-head' }, h('h3', { class: 'card-title', title: tag }, tag), runChip(run, ctx.colorOf(run))),
      this.plot, this.note, this.error);
  }

  setMode(mode) {
    if (mode === this.mode) return;
    this.mode = mode;
    this.el.dataset.mode = mode;
    if (this.active) this.load();
    else this.stale = true;
  }

  async fetch(signal) {
    const params = { run: this.run, tag: this.tag };
    const mode = this.mode;
    const histograms = fetchJSON('histograms', { ...params, max_entries: 50 }, { signal });
    const distribution = mode === 'distribution' ? fetchJSON('distribution', params, { signal }) : null;
    const [h, d] = [await histograms, await distribution];
    return { body: { mode, histograms: h.body, distribution: d?.body }, text: `${mode}\n${h.text}\n${d?.text}` };
  }

  /** Draws through the render queue (returns true: the state is set once drawn). */
  show(body) {
    scheduleRender(this, () => {
      this.draw(body);
      this.el.dataset.state = 'ready';
    });
    return true;
  }

  draw({ mode, histograms, distribution }) {
    const color = this.ctx.colorOf(this.run);
    const entries = histograms.entries;
    let fig;
    if (mode === 'distribution') fig = distributionFigure(distribution, color);
    else if (mode === 'overlay') fig = overlayFigure(entries, color);
    else fig = offsetFigure(entries, color);
    Plotly.react(this.plot, fig.data, { ...fig.layout, uirevision: mode }, CONFIG).catch((error) => {
      this.error.textContent = `Drawing failed: ${error.message}`;
      this.error.hidden = false;
    });
    this.plotted = true;
    const shown = mode === 'distribution' ? `${distribution.steps.length} steps`
      : `${entries.length} of ${histograms.total_entries} steps`;
    this.note.textContent = [entries.length ? shown : 'No histograms yet.', nonfiniteNote(entries)].filter(Boolean).join(' · ');
  }
}
