// One scalar chart card: one tag, all selected runs, one request. Fetches lazily,
// re-fetches a zoomed step range at full resolution, keeps the zoom through live
// refreshes, and never draws data of a run that is no longer selected.

import { fetchJSON } from './api.js';
import { LazyCard } from './card.js';
import { button, h, safeFileName, saveFile } from './dom.js';
import { fmtDuration, fmtValue } from './format.js';
import { canQuickDraw, quickPlot } from './quickplot.js';
import { GroupMembers } from './groupmembers.js';
import { RankPins, clickedEdge, clickedPoints } from './rankpins.js';
import { ReplacedPoints, writtenAgain } from './replacedpoints.js';
import { scheduleRender } from './renderqueue.js';
import { buildFigure, expandJobs, toCSV, toJSON, toStepRange, valuesAt } from './scalarfigure.js';
import { groupingOf, runParams } from './selection.js';

const CONFIG = {
  displaylogo: false,
  responsive: true,
  doubleClick: 'autosize',
  showTips: false, // plotly's "Double-click to zoom back out" toast stayed and followed into other tabs
  modeBarButtonsToRemove: ['select2d', 'lasso2d', 'toImage'],
};
// Points of all runs of one chart at most: many runs get fewer points each (never more
// than the server's --max-points, learnt from a response that did not ask for less).
const POINTS_PER_CHART = 50000;
const MIN_POINTS_PER_RUN = 100;

/** A performance mark the first time only (the UI benchmark reads them). */
function markOnce(name) {
  if (!performance.getEntriesByName(name).length) performance.mark(name);
}

function pointBudget(runs, serverMax) {
  if (!serverMax || runs * serverMax <= POINTS_PER_CHART) return undefined;
  return Math.min(serverMax, Math.max(MIN_POINTS_PER_RUN, Math.floor(POINTS_PER_CHART / runs)));
}

/** A relayout event's range of `axis`: [a, b], null for autorange, undefined if untouched. */
function rangeOf(event, axis) {
  if (event[`${axis}.autorange`]) return null;
  if (Array.isArray(event[`${axis}.range`])) return event[`${axis}.range`].slice(0, 2);
  if (`${axis}.range[0]` in event && `${axis}.range[1]` in event) return [event[`${axis}.range[0]`], event[`${axis}.range[1]`]];
  return undefined;
}

export class ScalarChart extends LazyCard {
  constructor(tag, ctx) {
    super();
    this.tag = tag;
    this.ctx = ctx;
    this.runs = [];
    this.data = null;
    this.shown = [];
    this.quick = null; // the SVG drawn before plotly.js is there (quickplot.js)
    this.zoomX = null; // the user's x range, axis units
    this.pendingZoom = ctx.zooms?.get(tag) ?? null; // the URL's zoom, applied at the first draw
    this.zoomY = null;
    this.stepRange = null; // [lo, hi] steps fetched at full resolution, or null for all
    this.uirevision = 1;
    this.firstWall = new Map(); // run -> wall time of its first point, for relative time
    this.needsDraw = false; // data or settings changed since the last draw
    this.pins = new RankPins(tag, () => this.settingsChanged('pins')); // ranks' own lines, pinned by a click
    this.replaced = new ReplacedPoints(tag, () => this.settingsChanged('pins')); // points a later writer replaced
    this.plot = h('div', { class: 'plot', 'aria-label': `chart of ${tag}` });
    this.error = h('div', { class: 'card-error', role: 'alert', hidden: true });
    this.note = h('div', { class: 'card-note' });
    // The data table: each line's value, smoothed value, step and relative time at the cursor.
    this.values = h('table', { class: 'chart-values', hidden: true, 'aria-label': `values of ${tag} at the cursor` });
    // A group's members, listed when its line is clicked (groupmembers.js).
    this.members = new GroupMembers({ pin: (member) => this.pins.toggle({ member }), openRuns: ctx.openRuns });
    const name = safeFileName(tag);
    this.el = h('article', { class: 'card chart-card', dataset: { tag, state: 'idle' } },
      h('header', { class: 'card-head' },
        h('h3', { class: 'card-title', title: tag }, tag),
        h('div', { class: 'card-actions' },
          button('CSV', () => saveFile(`${this.fileName(name)}.csv`, toCSV(this.shown), 'text/csv'),
            { title: 'Download the shown series as CSV (the zoomed step range only, when zoomed: the file name says so)' }),
          button('JSON', () => saveFile(`${this.fileName(name)}.json`, toJSON(tag, this.shown, this.ctx.scalar.smoothing), 'application/json'),
            { title: 'Download the shown series as JSON' }),
          button('PNG', () => this.plotted && Plotly.downloadImage(this.plot, { format: 'png', filename: name, width: 900, height: 500 }),
            { title: 'Download the chart as PNG' }),
          button('Pin', () => this.ctx.togglePin?.(tag), {
            class: 'pin-chart', title: 'Pin this chart to the top of the tab (unpin: click again)',
            'aria-pressed': String(Boolean(ctx.pins?.has(tag))),
          }),
          button('⤢', () => this.toggleWide(), { title: 'Wide chart', 'aria-label': 'Toggle wide chart', 'aria-pressed': 'false', class: 'wide-chart' }),
        )),
      this.plot, this.values, this.members.el, this.error, this.note);
  }

  /** A download's name: the tag's, and the step range when the chart is zoomed to one. */
  fileName(name) {
    const range = this.stepRange;
    if (!range) return name;
    return `${name}_steps_${range[0] ?? 'start'}-${range[1] ?? 'end'}`;
  }

  setRuns(runs) {
    this.el.querySelector('.pin-chart')?.setAttribute('aria-pressed', String(Boolean(this.ctx.pins?.has(this.tag))));
    if (runs.length === this.runs.length && runs.every((r, i) => r === this.runs[i])) return;
    this.runs = runs;
    this.stale = true;
    if (this.active) this.load();
  }

  skip() {
    return !this.runs.length;
  }

  resume() {
    if (!this.data) this.load();
    else if (this.needsDraw || !this.plotted) this.render();
  }

  forget() {
    this.data = null;
  }

  /** Settings changed: what = 'smoothing' | 'outliers' | 'logY' | 'xAxis'. */
  settingsChanged(what) {
    if (what === 'ranks') {
      if (this.active) this.load();
      else this.stale = true;
      return;
    }
    if (what === 'outliers' || what === 'logY' || what === 'xAxis') {
      this.zoomY = null;
      this.uirevision += 1;
    }
    if (what === 'xAxis') {
      if (this.zoomX) this.ctx.zoomChanged?.(this.tag, null);
      this.zoomX = null;
      if (this.stepRange) {
        this.stepRange = null;
        if (this.active) this.load();
        else this.stale = true;
        return;
      }
    }
    this.needsDraw = true;
    if (this.active && this.data) this.render();
  }

  /**
   * The series of the chart's runs: the zoomed step range at full resolution, or all
   * downsampled; many runs as groups with bands (selection.js), asked for by a query.
   */
  fetch(signal) {
    const range = this.stepRange;
    const grouping = groupingOf(this.ctx.scalar.groupBy, this.runs.length);
    const grouped = Object.keys(grouping).length > 0;
    const budget = grouped ? undefined : pointBudget(this.runs.length, this.ctx.serverMaxPoints);
    this.fetched = { range, budget, grouped };
    this.replaced.load(grouped ? [] : writtenAgain(this.runs, this.ctx.state.runByName), range, this.ctx.scalar.replaced);
    return fetchJSON('scalars',
      { tag: this.tag, ...runParams(this.ctx.state, this.runs, grouping), x_min: range?.[0], x_max: range?.[1],
        max_points: budget, ranks: this.ctx.scalar.perRank && !grouped ? 'each' : undefined },
      { signal });
  }

  show(body) {
    const { range, budget } = this.fetched;
    if (budget === undefined) this.ctx.serverMaxPoints = body.max_points;
    if (!range || range[0] === null) {
      for (const s of body.runs) if (s.wall_times.length) this.firstWall.set(s.run, s.wall_times[0]);
    }
    this.data = body;
    this.needsDraw = true;
    if (!this.active) return false;
    this.render();
    return true;
  }

  showError(message) {
    this.error.textContent = message;
    this.error.hidden = false;
    this.el.dataset.state = 'error';
  }

  render() {
    // Before plotly.js has loaded (the first second of a cold page), the chart is drawn as
    // plain SVG at once (quickplot.js); plotly replaces it when it can.
    if (window.Plotly === undefined && this.data && this.active && !this.plotted) this.drawQuick();
    scheduleRender(this, () => this.draw());
  }

  figure() {
    const selected = new Set(this.runs);
    // Groups are named by their key, not by a run: the answer asked for is what is selected.
    const runs = this.fetched?.grouped ? this.data.runs : this.data.runs.filter((s) => selected.has(s.run));
    const series = expandJobs(runs, this.ctx.scalar.perRank, this.ctx.scalar.center);
    this.pins.keep(this.runs);
    series.push(...this.pins.series());
    series.push(...this.replaced.series());
    const fig = buildFigure(series, {
      ...this.ctx.scalar,
      runColor: this.ctx.runColor,
      runStart: (run) => this.firstWall.get(run) ?? this.ctx.runStart(run),
      zoomX: this.zoomX,
      zoomY: this.zoomY,
      uirevision: this.uirevision,
    });
    return { fig, series };
  }

  drawQuick() {
    const { fig } = this.figure();
    this.quick?.remove();
    this.quick = null;
    if (!canQuickDraw(fig)) return;
    this.quick = quickPlot(fig, this.plot.clientWidth || 560);
    this.plot.append(this.quick);
    this.el.dataset.preview = 'drawn';
    markOnce('visualdl:first-chart-preview');
  }

  draw() {
    if (!this.data || !this.active) return;
    this.needsDraw = false;
    const opened = this.pendingZoom;
    if (opened) {
      this.pendingZoom = null;
      this.zoomX = opened;
      this.uirevision += 1;
    }
    const { fig, series } = this.figure();
    this.quick?.remove();
    this.quick = null;
    delete this.el.dataset.preview;
    this.shown = fig.shown;
    if (opened) { // the zoomed steps at full resolution, as a zoom by hand asks for them
      this.stepRange = toStepRange(opened, this.shown, this.ctx.scalar.xAxis, false);
      if (this.stepRange) this.load();
    }
    const seq = this.seq;
    Plotly.react(this.plot, fig.data, fig.layout, CONFIG).then(() => {
      markOnce('visualdl:first-chart');
      if (seq === this.seq && this.plotted) this.el.dataset.state = 'ready';
    }, (error) => this.showError(`Drawing failed: ${error.message}`));
    if (!this.plotted) {
      this.plot.on('plotly_relayout', (event) => this.onRelayout(event));
      this.plot.on('plotly_hover', (event) => this.showValues(event.points?.[0]?.x));
      this.plot.on('plotly_click', (event) => {
        const edge = clickedEdge(event, this.plot);
        if (edge) {
          this.pins.toggle(edge);
          return;
        }
        const group = this.clickedGroup(event);
        if (group) this.members.toggle(group);
      });
      this.plot.on('plotly_legendclick', (event) => {
        const name = event.data[event.curveNumber]?.meta?.run;
        if (!this.pins.has(name)) return true;
        this.pins.remove(name);
        return false;
      });
      this.plotted = true;
    }
    this.note.textContent = this.noteText(series);
  }

  /** The group whose line a plotly_click was nearest to (the pointer's height), or null. */
  clickedGroup(event) {
    const { pointerY, points } = clickedPoints(event, this.plot);
    let best = null;
    for (const p of points) {
      if (p.data?.meta?.kind !== 'smoothed') continue;
      const series = this.shown.find((s) => s.run === p.data.meta.run && s.group);
      if (!series) continue;
      const distance = pointerY === null ? 0 : Math.abs(p.yPixel - pointerY);
      if (!best || distance < best.distance) best = { distance, series };
    }
    return best?.series ?? null;
  }


  /** The data table at `x` (axis units): a row per line, the first 20 (the rest counted). */
  showValues(x) {
    if (x === undefined || x === null || typeof x !== 'number') return;
    const rows = valuesAt(this.shown, x);
    this.values.hidden = rows.length === 0;
    const cell = (v) => h('td', { class: 'num' }, typeof v === 'number' ? fmtValue(v) : String(v));
    const shown = rows.slice(0, 20);
    this.values.replaceChildren(
      h('thead', {}, h('tr', {}, ['Run', 'Value', 'Smoothed', 'Step', 'Relative'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, shown.map((r) => h('tr', { dataset: { run: r.run } }, h('td', { title: r.run }, r.run), cell(r.value),
        cell(r.smoothed), cell(r.step), h('td', { class: 'num' }, fmtDuration(r.relative))))),
      rows.length > shown.length ? h('caption', { class: 'muted' }, `and ${rows.length - shown.length} more lines`) : null,
    );
  }

  /** The card's own note (runs without the tag); downsampling is said once, in the toolbar. */
  noteText(series) {
    const cut = series.filter((s) => s.values.length < s.range_points);
    this.el.dataset.downsampled = cut.length ? String(Math.max(...cut.map((s) => s.range_points))) : '';
    this.ctx.downsamplingChanged?.();
    const groups = this.data.runs.filter((s) => s.group);
    const grouped = groups.length
      ? `${groups.length} group${groups.length === 1 ? '' : 's'} of ${groups.reduce((n, g) => n + g.group.members.length, 0)} runs (click a group's line to list its runs, a band's edge to draw that run). `
      : '';
    const missing = this.data.missing;
    if (!missing.length) return grouped.trim();
    const named = missing.slice(0, 8).join(', ') + (missing.length > 8 ? `, and ${missing.length - 8} more` : '');
    return `${grouped}No data for ${missing.length > 1 ? `${missing.length} runs: ` : ''}${named}.`;
  }

  onRelayout(event) {
    if (!this.data) return;
    const x = rangeOf(event, 'xaxis');
    const y = rangeOf(event, 'yaxis');
    if (y !== undefined) this.zoomY = y;
    if (x === undefined) return;
    this.uirevision += 1;
    this.ctx.zoomChanged?.(this.tag, x);
    if (x === null) {
      this.zoomX = null;
      if (!this.stepRange) return this.render();
      this.stepRange = null;
    } else {
      this.zoomX = x;
      this.stepRange = toStepRange(x, this.shown, this.ctx.scalar.xAxis, this.stepRange !== null);
    }
    this.load();
  }

  toggleWide() {
    const wide = this.el.classList.toggle('wide');
    this.el.querySelector('.wide-chart').setAttribute('aria-pressed', String(wide));
    if (this.plotted) Plotly.Plots.resize(this.plot);
  }
}
