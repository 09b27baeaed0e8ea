// An image card: one tag of one run, a step slider over its logged steps (a tick per step),
// the step's images (several side by side when a batch was logged at one step, each labelled
// with its index; a click shows one alone and a second click all again), the step and wall
// time, and a toggle between fitting the card's width and actual size. The cards of one tag
// sit in a row, one per run, and move together: a step chosen in one shows every run at that
// step (or the nearest logged before it).

import { apiUrl, fetchJSON } from './api.js';
import { button, h, runChip } from './dom.js';
import { fmtWall } from './format.js';
import { LazyCard } from './card.js';
import { gridColumns, stepGroups } from './imagesteps.js';

// tag -> the cards of that tag (one per run), for moving their sliders together.
const linked = new Map();
let ticksMade = 0;

/** The index of the last step at or before `step` in the ascending `steps` (0 if none is). */
export function indexAtOrBefore(steps, step) {
  let lo = 0;
  let hi = steps.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (steps[mid] <= step) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export class ImageCard extends LazyCard {
  constructor(tag, run, ctx) {
    super();
    this.tag = tag;
    this.run = run;
    this.list = null;
    this.groups = null; // the list's steps: stepGroups(list.steps)
    this.index = null; // the step shown, by position in this.groups; null: follow the newest
    this.focus = null; // the image shown alone among its step's, or null: all of them
    this.fit = true;
    this.cells = []; // one {cell, img, label} per image of the step shown
    this.shots = h('div', { class: 'shots' });
    this.frame = h('div', { class: 'frame fit' }, this.shots);
    this.slider = h('input', { type: 'range', class: 'step-slider', min: 0, max: 0, step: 1, 'aria-label': `Step of ${tag} in ${run}` });
    this.slider.addEventListener('input', () => {
      this.select(Number(this.slider.value));
      this.follow();
    });
    this.ticks = h('datalist', { id: `image-ticks-${++ticksMade}` });
    this.slider.setAttribute('list', this.ticks.id);
    if (!linked.has(tag)) linked.set(tag, new Set());
    linked.get(tag).add(this);
    this.caption = h('div', { class: 'caption', 'aria-live': 'polite' });
    this.sizeButton = button('Actual size', () => this.toggleSize(), { 'aria-pressed': 'false', title: 'Toggle actual size / fit width' });
    this.error = h('div', { class: 'card-error', role: 'alert', hidden: true });
    this.el = h('article', { class: 'card image-card', dataset: { tag, run, state: 'idle' } },
      h('header', { class: 'card-head' }, h('h3', { class: 'card-title', title: tag }, tag), runChip(run, ctx.colorOf(run))),
      this.frame,
      h('div', { class: 'image-controls' }, this.slider, this.ticks, this.sizeButton),
      this.caption, this.error);
  }

  fetch(signal) {
    return fetchJSON('images', { run: this.run, tag: this.tag }, { signal });
  }

  show(list) {
    const before = this.groups?.steps.length ?? 0;
    this.list = list;
    this.groups = stepGroups(list.steps);
    const n = this.groups.steps.length;
    if (this.index === null || this.index >= n || (this.index === before - 1 && n > before)) this.index = n - 1;
    this.slider.max = String(Math.max(n - 1, 0));
    this.slider.disabled = n <= 1;
    if (this.ticks.children.length !== n) {  // a tick per logged step, up to where ticks still read
      this.ticks.replaceChildren(...(n <= 200 ? this.groups.steps.map((_, i) => h('option', { value: String(i) })) : []));
    }
    this.select(this.index);
  }

  /** Show every other run of this tag at this card's step (or the nearest logged before it). */
  follow() {
    const step = this.groups?.steps[this.index];
    if (step === undefined) return;
    for (const other of linked.get(this.tag) || []) {
      if (other === this || !other.groups?.steps.length) continue;
      other.select(indexAtOrBefore(other.groups.steps, step));
    }
  }

  dispose() {
    super.dispose();
    linked.get(this.tag)?.delete(this);
  }

  /** The cells for `count` images, made anew only when the count changes. */
  makeCells(count) {
    if (this.cells.length === count) return;
    this.cells = Array.from({ length: count }, (_, k) => {
      const img = h('img', { class: 'shot', alt: `${this.tag} (${this.run}) #${k}`, decoding: 'async' });
      img.addEventListener('load', () => this.updateScaling());
      img.addEventListener('error', () => {
        if (img.getAttribute('src')) this.caption.textContent = 'The image could not be loaded.';
      });
      const label = h('span', { class: 'shot-index' }, String(k));
      const cell = h('figure', { class: 'shot-cell', dataset: { sample: String(k) } }, img, label);
      cell.addEventListener('click', () => this.toggleFocus(k));
      return { cell, img, label };
    });
    this.shots.replaceChildren(...this.cells.map((c) => c.cell));
  }

  select(index) {
    const { wall_times: walls, widths, heights } = this.list;
    const { steps, starts, counts } = this.groups;
    if (!steps.length) {
      this.makeCells(0);
      this.caption.textContent = 'No images yet.';
      return;
    }
    this.index = index;
    this.slider.value = String(index);
    const start = starts[index];
    const count = counts[index];
    if (this.focus !== null && this.focus >= count) this.focus = null;
    this.makeCells(count);
    this.el.dataset.step = String(steps[index]);
    this.el.dataset.images = String(count);
    this.shots.classList.toggle('batch', count > 1);
    this.shots.style.setProperty('--cols', String(gridColumns(count)));
    this.cells.forEach(({ cell, img }, k) => {
      const at = start + k;
      // The wall time keys the browser cache: an index never serves another image's bytes.
      const src = apiUrl('image', { run: this.run, tag: this.tag, index: at, t: walls[at] });
      if (img.getAttribute('src') !== src) img.src = src;
      img.width = widths[at];
      img.height = heights[at];
      cell.title = count > 1 ? `#${k} of ${count}: ${widths[at]}×${heights[at]} (click to show it alone)` : '';
    });
    this.applyFocus();
    const size = count > 1 ? `${count} images` : `${widths[start]}×${heights[start]}`;
    this.caption.replaceChildren(
      h('span', { class: 'step-label' }, `step ${steps[index]}`),
      ` · ${fmtWall(walls[start])} · ${size} · ${index + 1} of ${steps.length}`,
    );
    this.updateScaling();
  }

  /** One image of a batch alone (a click on it), or all of them again (a second click). */
  toggleFocus(k) {
    if (this.cells.length <= 1) return;
    this.focus = this.focus === k ? null : k;
    this.applyFocus();
    this.updateScaling();
  }

  applyFocus() {
    this.shots.classList.toggle('focused', this.focus !== null);
    this.cells.forEach(({ cell }, k) => cell.classList.toggle('focused', k === this.focus));
  }

  toggleSize() {
    this.fit = !this.fit;
    this.frame.classList.toggle('fit', this.fit);
    this.sizeButton.setAttribute('aria-pressed', String(!this.fit));
    this.updateScaling();
  }

  /** Pixelated rendering when an image is shown larger than it is. */
  updateScaling() {
    for (const { img } of this.cells) {
      const natural = img.naturalWidth || img.width;
      img.classList.toggle('pixelated', this.fit && img.clientWidth > natural);
    }
  }
}
