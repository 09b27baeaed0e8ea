// A tab of one card per (tag, run): Images, Histograms and Text. Cards are grouped by
// tag prefix and created lazily by the CardGrid; the card class does the rest.

import { CardGrid } from './cardgrid.js';
import { groupOf, matches, naturalCompare } from './dom.js';

export class PerRunView {
  /** kind: the /api/tags key ('images', ...); noun: for empty states; Card(tag, run, ctx). */
  constructor(panel, ctx, { kind, noun, Card }) {
    this.ctx = ctx;
    this.kind = kind;
    this.noun = noun;
    this.Card = Card;
    this.grid = new CardGrid(panel.querySelector('.grid-root'));
    this.empty = panel.querySelector('.empty');
  }

  update() {
    const byTag = this.ctx.state.tags[this.kind] || {};
    const selected = this.ctx.selectedRuns();
    const items = [];
    for (const tag of Object.keys(byTag).sort(naturalCompare)) {
      if (!matches(this.ctx.state.tagFilter, tag)) continue;
      for (const run of byTag[tag]) {
        if (selected.has(run)) items.push({ key: `${tag}\u0000${run}`, group: groupOf(tag), tag, run });
      }
    }
    this.empty.textContent = items.length ? '' : this.ctx.emptyText(this.noun, Object.keys(byTag).length);
    this.empty.hidden = items.length > 0;
    this.grid.setItems(items, (item) => new this.Card(item.tag, item.run, this.ctx));
  }

  /** Live refresh of the cards in view; resolves when their fetches are done. */
  refresh() {
    const pending = [];
    this.grid.forEach((card) => pending.push(card.refresh()));
    return Promise.all(pending);
  }

  forEachCard(fn) {
    this.grid.forEach(fn);
  }
}

/**
 * The life of a per-run card that fetches JSON: activate/deactivate/refresh/dispose,
 * one request at a time, stale responses dropped, unchanged ones (live refresh) not
 * shown again. Subclasses implement fetch(signal) -> {body, text} and show(body); a
 * show() that draws later returns true and sets data-state="ready" itself.
 */
export class LazyCard {
  constructor() {
    this.active = false;
    this.stale = true;
    this.seq = 0;
    this.controller = null;
    this.lastText = null;
  }

  activate() {
    this.active = true;
    if (this.stale) this.load();
  }

  deactivate() {
    this.active = false;
  }

  refresh() {
    if (!this.active) this.stale = true;
    else if (!this.controller) return this.load({ quiet: true });
    return undefined;
  }

  dispose() {
    this.active = false;
    this.controller?.abort();
  }

  async load({ quiet = false } = {}) {
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    const seq = ++this.seq;
    this.el.dataset.state = 'loading';
    try {
      const { body, text } = await this.fetch(controller.signal);
      if (seq !== this.seq) return;
      this.stale = false;
      this.error.hidden = true;
      if (quiet && text === this.lastText) {
        this.el.dataset.state = 'ready';
        return;
      }
      this.lastText = text;
      if (this.show(body) !== true) this.el.dataset.state = 'ready';
    } catch (error) {
      if (error?.name === 'AbortError' || seq !== this.seq) return;
      this.lastText = null;
      this.error.textContent = error.message;
      this.error.hidden = false;
      this.el.dataset.state = 'error';
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }
}
