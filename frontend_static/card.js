// The one life of every card that fetches data: lazy activation, one request at a time
// (a newer one aborts the older), stale responses dropped, unchanged ones (a live refresh)
// not drawn again, and release of the plot and data of a card long out of view.
//
// Subclasses implement fetch(signal) -> {body, text} and show(body); a show() that draws
// later (through the render queue) returns true and sets data-state="ready" itself. They
// may set `this.plot` (a div plotly draws in, `this.plotted` once it has), and implement
// skip() (nothing to fetch yet), resume() (activated with current data: redraw if needed)
// and forget() (release their data).

import { cancelRender } from './renderqueue.js';

const RELEASE_AFTER_MS = 15000;

export class LazyCard {
  constructor() {
    this.active = false;
    this.stale = true;
    this.seq = 0;
    this.controller = null;
    this.lastText = null;
    this.plot = null;
    this.plotted = false;
    this.releaseTimer = 0;
  }

  activate() {
    clearTimeout(this.releaseTimer);
    this.active = true;
    if (this.stale) this.load();
    else this.resume();
  }

  deactivate() {
    this.active = false;
    clearTimeout(this.releaseTimer);
    this.releaseTimer = setTimeout(() => this.release(), RELEASE_AFTER_MS);
  }

  /** Live refresh: re-fetch if in view (and not already fetching), else fetch on return. */
  refresh() {
    if (!this.active) this.stale = true;
    else if (!this.controller) return this.load({ quiet: true });
    return undefined;
  }

  /** Free the plot and data of a card long out of view; it reloads when it comes back. */
  release() {
    if (this.active) return;
    this.controller?.abort();
    cancelRender(this);
    this.purge();
    this.stale = true;
    this.lastText = null;
    this.forget();
    this.el.dataset.state = 'idle';
  }

  dispose() {
    this.active = false;
    clearTimeout(this.releaseTimer);
    this.controller?.abort();
    cancelRender(this);
    this.purge();
  }

  purge() {
    if (this.plotted) Plotly.purge(this.plot);
    this.plotted = false;
  }

  skip() {
    return false;
  }

  resume() {}

  forget() {}

  /** Whether what the card shows is its last response (a release drops the drawing). */
  drawn() {
    return !this.plot || this.plotted;
  }

  async load({ quiet = false } = {}) {
    if (this.skip()) return;
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
      if (quiet && text === this.lastText && this.drawn()) {
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
