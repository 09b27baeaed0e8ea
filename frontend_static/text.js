// A text card: the entries of one tag of one run, newest first, rendered as Markdown
// (markdown.js: DOM nodes, never HTML from the log).

import { fetchJSON } from './api.js';
import { button, h, runChip } from './dom.js';
import { fmtWall } from './format.js';
import { LazyCard } from './card.js';
import { toDom } from './markdown.js';

const PAGE = 20;

export class TextCard extends LazyCard {
  constructor(tag, run, ctx) {
    super();
    this.tag = tag;
    this.run = run;
    this.limit = PAGE;
    this.entries = [];
    this.list = h('ol', { class: 'text-entries', reversed: true });
    this.more = h('div', { class: 'more' });
    this.error = h('div', { class: 'card-error', role: 'alert', hidden: true });
    this.el = h('article', { class: 'card text-card', dataset: { tag, run, state: 'idle' } },
      h('header', { class: 'card-head' }, h('h3', { class: 'card-title', title: tag }, tag), runChip(run, ctx.colorOf(run))),
      this.list, this.more, this.error);
  }

  fetch(signal) {
    return fetchJSON('text', { run: this.run, tag: this.tag }, { signal });
  }

  show(body) {
    this.entries = body.entries.slice().reverse();
    this.draw();
  }

  draw() {
    const shown = this.entries.slice(0, this.limit);
    this.list.replaceChildren(...shown.map((entry) =>
      h('li', { class: 'text-entry' },
        h('div', { class: 'text-meta' }, `step ${entry.step} · ${fmtWall(entry.wall_time)}`),
        h('div', { class: 'text-body markdown' }, toDom(entry.text)))));
    if (!this.entries.length) this.list.replaceChildren(h('li', { class: 'muted' }, 'No text entries yet.'));
    const rest = this.entries.length - shown.length;
    this.more.replaceChildren(rest > 0 ? button(`Show ${Math.min(rest, PAGE)} older (${rest} more)`, () => {
      this.limit += PAGE;
      this.draw();
    }) : '');
  }
}
