// Cards grouped in collapsible sections (by tag prefix), a page of cards at a time per
// group, and lazy life: a card is activated (created plot, fetched data, refreshed)
// only while it is near the viewport, and deactivated (no refresh, released after a
// while) when it leaves.
//
// A card is any object with: el, activate(), deactivate(), refresh(), dispose().

import { button, groupOf, h, matches, naturalCompare } from './dom.js';

export class CardGrid {
  constructor(root, { pageSize = 24, margin = '400px' } = {}) {
    this.root = root;
    this.pageSize = pageSize;
    this.cards = new Map(); // key -> card
    this.groups = new Map(); // group name -> {open, pages}
    this.items = [];
    this.signature = '';
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), {
      rootMargin: `${margin} 0px ${margin} 0px`,
    });
  }

  onIntersect(entries) {
    for (const entry of entries) {
      const card = entry.target.card;
      if (!card || !this.cards.has(card.key)) continue;
      if (entry.isIntersecting) card.activate();
      else card.deactivate();
    }
  }

  /**
   * items: [{key, group, ...}] in display order. create(item) makes a card; update(card,
   * item) hands an existing card its item again (e.g. a new run list).
   */
  setItems(items, create, update = () => {}) {
    this.items = items;
    this.create = create;
    this.update = update;
    this.render();
  }

  group(name) {
    if (!this.groups.has(name)) this.groups.set(name, { open: true, pages: 1 });
    return this.groups.get(name);
  }

  render() {
    const byGroup = new Map();
    for (const item of this.items) {
      if (!byGroup.has(item.group)) byGroup.set(item.group, []);
      byGroup.get(item.group).push(item);
    }
    const layout = [];
    const wanted = new Set();
    for (const [name, list] of byGroup) {
      const state = this.group(name);
      const shown = state.open ? list.slice(0, state.pages * this.pageSize) : [];
      for (const item of shown) wanted.add(item.key);
      layout.push({ name, total: list.length, open: state.open, shown });
    }
    for (const [key, card] of this.cards) {
      if (wanted.has(key)) continue;
      this.observer.unobserve(card.el);
      card.dispose();
      this.cards.delete(key);
    }
    for (const { shown } of layout) {
      for (const item of shown) {
        let card = this.cards.get(item.key);
        if (!card) {
          card = this.create(item);
          card.key = item.key;
          card.el.card = card;
          this.cards.set(item.key, card);
          this.observer.observe(card.el);
        }
        this.update(card, item);
      }
    }
    const signature = JSON.stringify(layout.map((g) => [g.name, g.total, g.open, g.shown.map((i) => i.key)]));
    if (signature === this.signature) return;
    this.signature = signature;
    this.root.replaceChildren(...layout.map((g) => this.section(g)));
  }

  section({ name, total, open, shown }) {
    // A group of one card takes one column of the page's grid, beside the next such group,
    // instead of a whole row (style.css): one-chart groups no longer waste half the width.
    const details = h('details', { class: total === 1 ? 'group single' : 'group', open, dataset: { group: name } });
    details.addEventListener('toggle', () => {
      if (this.group(name).open === details.open) return;
      this.group(name).open = details.open;
      this.render();
    });
    const summary = h('summary', {}, h('span', { class: 'group-name' }, name), h('span', { class: 'group-count' }, String(total)));
    const cards = h('div', { class: 'cards' }, shown.map((item) => this.cards.get(item.key).el));
    details.append(summary, cards);
    if (open && shown.length < total) {
      const rest = total - shown.length;
      details.append(
        h('div', { class: 'more' },
          button(`Show ${Math.min(rest, this.pageSize)} more (${shown.length} of ${total} shown)`, () => {
            this.group(name).pages += 1;
            this.render();
          }),
        ),
      );
    }
    return details;
  }

  forEach(fn) {
    for (const card of this.cards.values()) fn(card);
  }

  /** Live refresh of the cards in view; resolves when their fetches are done. */
  refresh() {
    const pending = [];
    this.forEach((card) => pending.push(card.refresh()));
    return Promise.all(pending);
  }

  clear() {
    this.items = [];
    this.render();
  }
}

/**
 * The items of a tab of one card per tag (Scalars, PR/ROC curves): every tag of `kind`
 * (the /api/tags key) that the tag filter keeps and some selected run has, with those runs.
 */
export function tagItems(ctx, kind) {
  const byTag = ctx.state.tags[kind] || {};
  const selected = ctx.selectedRuns();
  const items = [];
  for (const tag of Object.keys(byTag).sort(naturalCompare)) {
    if (!matches(ctx.state.tagFilter, tag)) continue;
    const runs = byTag[tag].filter((run) => selected.has(run));
    if (runs.length) items.push({ key: tag, group: groupOf(tag), tag, runs });
  }
  return { items, tags: Object.keys(byTag).length };
}
