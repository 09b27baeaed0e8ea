// A histogram card: one tag of one run in offset, overlay or distribution mode.

import { fetchJSON } from './api.js';
import { h, runChip } from './dom.js';
import { LazyCard } from './card.js';
import { distributionFigure, nonfiniteNote, offsetFigure, overlayFigure } from './histfigure.js';
import { cancelRender, scheduleRender } from './renderqueue.js';

const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['select2d', 'lasso2d'] };
export const MODES = { offset: 'Offset', overlay: 'Overlay', distribution: 'Distribution' };
// Bins a card draws: the server re-bins each step's buckets onto one even grid (TensorBoard's 30),
// so that uneven buckets (torch's and TensorFlow's, exponential around 0) draw their values'
// shape and not their own widths. /api/histograms without bins gives the buckets as written.
export const BINS = 30;

// The cards of one tag (one per run) share their value axis, the union of what each shows,
// so that runs compare at a glance; a card alone keeps its own range. tag -> card -> extent.
const shared = new Map();

/** [lowest, highest] value a card's data shows in `mode` (bucket edges, or percentiles). */
export function valueExtent(mode, histograms, distribution) {
  let lo = Infinity;
  let hi = -Infinity;
  const see = (v) => {
    if (Number.isFinite(v)) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  };
  if (mode === 'distribution') for (const row of distribution.bands) row.forEach(see);
  else for (const e of histograms.entries) if (e.edges.length) see(e.edges[0]), see(e.edges[e.edges.length - 1]);
  return lo <= hi ? [lo, hi] : null;
}

/** The range the cards of `tag` drawn in `mode` share (2 % padding), or null for fewer than two. */
export function sharedRange(extents, mode) {
  const mine = [...extents].filter((x) => x.mode === mode && x.extent);
  if (mine.length < 2) return null;
  const lo = Math.min(...mine.map((x) => x.extent[0]));
  const hi = Math.max(...mine.map((x) => x.extent[1]));
  const pad = (hi - lo) * 0.02 || Math.abs(lo) * 0.02 || 1;
  return [lo - pad, hi + pad];
}

const valueAxis = (mode) => (mode === 'distribution' ? 'yaxis' : 'xaxis');

export class HistogramCard extends LazyCard {
  constructor(tag, run, ctx) {
    super();
    this.tag = tag;
    this.run = run;
    this.ctx = ctx;
    this.mode = ctx.histogramMode;
    this.aligning = {}; // this card's place in the render queue for a new value range, apart from its draws
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
    const histograms = fetchJSON('histograms', { ...params, max_entries: 50, bins: BINS }, { signal });
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

  /** Share this card's value extent with the other cards of its tag; the range they share now. */
  share(mode, extent) {
    if (!shared.has(this.tag)) shared.set(this.tag, new Map());
    const cards = shared.get(this.tag);
    cards.set(this, { mode, extent });
    return sharedRange(cards.values(), mode);
  }

  unshare() {
    cancelRender(this.aligning);
    const cards = shared.get(this.tag);
    if (!cards?.delete(this)) return;
    if (!cards.size) shared.delete(this.tag);
    else this.constructor.align(this.tag);
  }

  /**
   * Give every drawn card of `tag` the range the cards drawn in its mode share, through the
   * render queue like every plotly call: when a filter removes several cards of a tag, the
   * first one's unshare must not relayout the next one, purged a moment later (plotly's
   * relayout would then finish on a div without its events: "e.emit is not a function").
   */
  static align(tag) {
    for (const card of shared.get(tag)?.keys() ?? []) scheduleRender(card.aligning, () => card.realign());
  }

  /** Relayout to the range shared now, if this card is drawn and that range changed. */
  realign() {
    const cards = shared.get(this.tag);
    const mine = cards?.get(this);
    if (!this.plotted || !mine) return;
    const range = sharedRange(cards.values(), mine.mode);
    const key = range ? range.join() : '';
    if (this.el.dataset.valueRange === key) return;
    this.el.dataset.valueRange = key;
    const axis = valueAxis(mine.mode);
    Plotly.relayout(this.plot, range ? { [`${axis}.range`]: range } : { [`${axis}.autorange`]: true });
  }

  forget() {
    this.unshare();
  }

  dispose() {
    super.dispose();
    this.unshare();
  }

  draw({ mode, histograms, distribution }) {
    const color = this.ctx.colorOf(this.run);
    const entries = histograms.entries;
    let fig;
    if (mode === 'distribution') fig = distributionFigure(distribution, color);
    else if (mode === 'overlay') fig = overlayFigure(entries, color);
    else fig = offsetFigure(entries, color);
    const range = this.share(mode, valueExtent(mode, histograms, distribution));
    if (range) {
      const axis = valueAxis(mode);
      fig.layout[axis] = { ...fig.layout[axis], range, autorange: false };
    }
    this.el.dataset.valueRange = range ? range.join() : '';
    Plotly.react(this.plot, fig.data, { ...fig.layout, uirevision: mode }, CONFIG).catch((error) => {
      this.error.textContent = `Drawing failed: ${error.message}`;
      this.error.hidden = false;
    });
    this.plotted = true;
    HistogramCard.align(this.tag);
    const shown = mode === 'distribution' ? `${distribution.steps.length} steps`
      : `${entries.length} of ${histograms.total_entries} steps in ${histograms.bins} even bins`;
    this.note.textContent = [entries.length ? shown : 'No histograms yet.', nonfiniteNote(entries)].filter(Boolean).join(' · ');
  }
}
