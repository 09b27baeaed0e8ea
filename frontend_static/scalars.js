// The Scalars tab: its toolbar (smoothing, x axis, log y, outliers) and one chart per
// tag, grouped by tag prefix, created lazily by the CardGrid.

import { getJSON } from './api.js';
import { CardGrid, tagItems } from './cardgrid.js';
import { h } from './dom.js';
import { ScalarChart } from './scalarchart.js';
import { GROUPINGS } from './selection.js';

/** The group of the charts pinned to the top. */
export const PINNED = 'Pinned';

export class ScalarsView {
  constructor(panel, ctx) {
    this.ctx = ctx;
    this.grid = new CardGrid(panel.querySelector('.grid-root'));
    this.empty = panel.querySelector('.empty');
    this.bindToolbar(panel);
    this.pending = new Set();
    // One note for every chart drawn from fewer points than its runs hold (it was on each card).
    this.downsampled = h('span', { class: 'muted downsampled-note', 'aria-live': 'polite' });
    panel.querySelector('.toolbar').append(this.downsampled);
    let queued = false;
    ctx.downsamplingChanged = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        this.updateDownsampled(panel);
      });
    };
  }

  updateDownsampled(panel) {
    const cut = [...panel.querySelectorAll('.chart-card[data-downsampled]')].filter((c) => c.dataset.downsampled);
    if (!cut.length) {
      this.downsampled.textContent = '';
      return;
    }
    const most = Math.max(...cut.map((c) => Number(c.dataset.downsampled)));
    const per = this.ctx.serverMaxPoints ? `${this.ctx.serverMaxPoints.toLocaleString()} ` : '';
    this.downsampled.textContent = `${cut.length} chart${cut.length === 1 ? '' : 's'} downsampled to ${per}of up to ${most.toLocaleString()} points per run (spikes kept); zoom in for every point.`;
  }

  bindToolbar(panel) {
    const s = this.ctx.scalar;
    const slider = panel.querySelector('#smoothing');
    const number = panel.querySelector('#smoothing-value');
    slider.value = number.value = String(s.smoothing);
    const setSmoothing = (raw, from) => {
      const value = Math.min(Math.max(Number(raw) || 0, 0), 0.999);
      s.smoothing = value;
      if (from !== slider) slider.value = String(value);
      if (from !== number) number.value = String(value);
      this.ctx.save();
      this.schedule('smoothing');
    };
    slider.addEventListener('input', () => setSmoothing(slider.value, slider));
    number.addEventListener('change', () => setSmoothing(number.value, number));
    for (const radio of panel.querySelectorAll('input[name="x-axis"]')) {
      radio.checked = radio.value === s.xAxis;
      radio.addEventListener('change', () => {
        if (!radio.checked) return;
        s.xAxis = radio.value;
        this.ctx.save();
        this.grid.forEach((card) => card.settingsChanged('xAxis'));
      });
    }
    this.groupSelect = panel.querySelector('#group-by');
    this.setGroupFields(null);
    this.groupSelect.addEventListener('change', () => {
      s.groupBy = this.groupSelect.value;
      this.ctx.save();
      this.grid.forEach((card) => card.settingsChanged('ranks'));
    });
    for (const [selector, key] of [['#band-center', 'center'], ['#band-kind', 'band'], ['#smoothing-mode', 'smoothingMode']]) {
      const select = panel.querySelector(selector);
      select.value = s[key];
      select.addEventListener('change', () => {
        s[key] = select.value;
        this.ctx.save();
        this.grid.forEach((card) => card.settingsChanged('band'));
      });
    }
    const toggles = [['#log-y', 'logY', 'logY'], ['#ignore-outliers', 'ignoreOutliers', 'outliers'], ['#per-rank', 'perRank', 'ranks'],
      ['#replaced-points', 'replaced', 'ranks']];
    for (const [selector, key, what] of toggles) {
      const box = panel.querySelector(selector);
      box.checked = Boolean(s[key]);
      box.addEventListener('change', () => {
        s[key] = box.checked;
        this.ctx.save();
        this.grid.forEach((card) => card.settingsChanged(what));
      });
    }
  }

  /**
   * The group control's choices: automatic, never, by folder, and by each hparam (`fields`,
   * null until the server said; a saved choice stays offered meanwhile).
   */
  setGroupFields(fields) {
    const s = this.ctx.scalar;
    const choices = [...Object.entries(GROUPINGS), ...(fields ?? []).map((f) => [f, `by ${f}`])];
    if (fields === null && !choices.some(([value]) => value === s.groupBy)) choices.push([s.groupBy, `by ${s.groupBy}`]);
    const key = choices.map(([value]) => value).join('\u0000');
    if (key === this.groupKey) return;
    this.groupKey = key;
    this.groupSelect.replaceChildren(...choices.map(([value, label]) => h('option', { value }, label)));
    if (!choices.some(([value]) => value === s.groupBy)) s.groupBy = 'auto';
    this.groupSelect.value = s.groupBy;
  }

  /** The hparams a chart may group by, asked again when the runs change. */
  loadGroupFields() {
    const runs = this.ctx.state.runs.length;
    if (runs === this.fieldsFor) return;
    this.fieldsFor = runs;
    getJSON('runs/table', { limit: 1 }).then((body) => this.setGroupFields(body.hparams), () => {
      this.fieldsFor = undefined; // asked again at the next update
    });
  }

  /** Coalesce slider input to one redraw per frame. */
  schedule(what) {
    if (this.pending.size === 0) {
      requestAnimationFrame(() => {
        const whats = [...this.pending];
        this.pending.clear();
        this.grid.forEach((card) => whats.forEach((w) => card.settingsChanged(w)));
      });
    }
    this.pending.add(what);
  }

  /** Rebuild the list of charts from the tags, selected runs and tag filter. */
  update() {
    this.loadGroupFields();
    const { items, tags } = tagItems(this.ctx, 'scalars');
    this.empty.textContent = items.length ? '' : this.ctx.emptyText('scalar', tags);
    this.empty.hidden = items.length > 0;
    // Pinned charts come first, in a group of their own; each stays in its group too.
    const pinned = items.filter((item) => this.ctx.pins?.has(item.tag))
      .map((item) => ({ ...item, key: `${PINNED}\u0000${item.tag}`, group: PINNED }));
    this.grid.setItems([...pinned, ...items], (item) => new ScalarChart(item.tag, this.ctx), (card, item) => card.setRuns(item.runs));
  }

  /** Live refresh of the charts in view; resolves when their fetches are done. */
  refresh() {
    return this.grid.refresh();
  }
}
