// An image card: one tag of one run, a step slider over every logged image (a tick per
// logged step), the step and wall time, and a toggle between fitting the card's width and
// actual size. The cards of one tag sit in a row, one per run, and move together: a step
// chosen in one shows every run at that step (or the nearest logged before it).

import { apiUrl, fetchJSON } from './api.js';
import { button, h, runChip } from './dom.js';
import { fmtWall } from './format.js';
import { LazyCard } from './card.js';

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
    this.index = null; // null: follow the newest image
    this.fit = true;
    this.img = h('img', { class: 'shot', alt: `${tag} (${run})`, decoding: 'async' });
    this.img.addEventListener('load', () => this.updateScaling());
    this.img.addEventListener('error', () => {
      if (this.img.getAttribute('src')) this.caption.textContent = 'The image could not be loaded.';
    });
    this.frame = h('div', { class: 'frame fit' }, this.img);
    this.slider = h('input', { type: 'range', class: 'step-slider', min: 0, max: 0, step: 1, 'aria-label': `Image of ${tag} in ${run}` });
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
    const before = this.list?.steps.length ?? 0;
    this.list = list;
    const n = list.steps.length;
    if (this.index === null || this.index >= n || (this.index === before - 1 && n > before)) this.index = n - 1;
    this.slider.max = String(Math.max(n - 1, 0));
    this.slider.disabled = n <= 1;
    if (this.ticks.children.length !== n) {  // a tick per logged step, up to where ticks still read
      this.ticks.replaceChildren(...(n <= 200 ? list.steps.map((_, i) => h('option', { value: String(i) })) : []));
    }
    this.select(this.index);
  }

  /** Show every other run of this tag at this card's step (or the nearest logged before it). */
  follow() {
    const step = this.list?.steps[this.index];
    if (step === undefined) return;
    for (const other of linked.get(this.tag) || []) {
      if (other === this || !other.list?.steps.length) continue;
      other.select(indexAtOrBefore(other.list.steps, step));
    }
  }

  dispose() {
    super.dispose();
    linked.get(this.tag)?.delete(this);
  }

  select(index) {
    const { steps, wall_times: walls, widths, heights } = this.list;
    if (!steps.length) {
      this.img.removeAttribute('src');
      this.caption.textContent = 'No images yet.';
      return;
    }
    this.index = index;
    this.slider.value = String(index);
    this.el.dataset.step = String(steps[index]);
    // The wall time keys the browser cache: an index never serves another image's bytes.
    const src = apiUrl('image', { run: this.run, tag: this.tag, index, t: walls[index] });
    if (this.img.getAttribute('src') !== src) this.img.src = src;
    this.img.width = widths[index];
    this.img.height = heights[index];
    this.caption.replaceChildren(
      h('span', { class: 'step-label' }, `step ${steps[index]}`),
      ` · ${fmtWall(walls[index])} · ${widths[index]}×${heights[index]} · ${index + 1} of ${steps.length}`,
    );
    this.updateScaling();
  }

  toggleSize() {
    this.fit = !this.fit;
    this.frame.classList.toggle('fit', this.fit);
    this.sizeButton.setAttribute('aria-pressed', String(!this.fit));
    this.updateScaling();
  }

  /** Pixelated rendering when the image is shown larger than it is. */
  updateScaling() {
    const natural = this.img.naturalWidth || this.img.width;
    this.img.classList.toggle('pixelated', this.fit && this.frame.clientWidth > natural);
  }
}
