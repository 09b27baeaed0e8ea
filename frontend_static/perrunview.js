// A tab of one card per (tag, run): Images, Histograms, Text and Audio. Cards are grouped
// by tag prefix and created lazily by the CardGrid; the card class (a LazyCard of card.js)
// does the rest.

import { CardGrid } from './cardgrid.js';
import { groupOf, matches, naturalCompare } from './dom.js';

export class PerRunView {
  /** kind: the /api/tags key ('images', ...); noun: for empty states; Card(tag, run, ctx);
   * rowPerTag: each tag its own group (a row of its runs side by side), not its prefix's. */
  constructor(panel, ctx, { kind, noun, Card, rowPerTag = false }) {
    this.ctx = ctx;
    this.rowPerTag = rowPerTag;
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
        const group = this.rowPerTag ? tag : groupOf(tag);
        if (selected.has(run)) items.push({ key: `${tag}\u0000${run}`, group, tag, run });
      }
    }
    this.empty.textContent = items.length ? '' : this.ctx.emptyText(this.noun, Object.keys(byTag).length);
    this.empty.hidden = items.length > 0;
    this.grid.setItems(items, (item) => new this.Card(item.tag, item.run, this.ctx));
  }

  /** Live refresh of the cards in view; resolves when their fetches are done. */
  refresh() {
    return this.grid.refresh();
  }

  forEachCard(fn) {
    this.grid.forEach(fn);
  }
}
