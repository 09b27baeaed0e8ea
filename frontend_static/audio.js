// An audio card: one tag of one run, a step slider over every logged clip, a native player
// of the chosen clip (its WAV streamed from the log file), and its sample rate, channels
// and length.

import { apiUrl, fetchJSON } from './api.js';
import { h, runChip } from './dom.js';
import { fmtWall } from './format.js';
import { LazyCard } from './card.js';

export class AudioCard extends LazyCard {
  constructor(tag, run, ctx) {
    super();
    this.tag = tag;
    this.run = run;
    this.entries = [];
    this.index = null; // null: follow the newest clip
    this.player = h('audio', { controls: true, preload: 'metadata', class: 'player', 'aria-label': `${tag} (${run})` });
    this.slider = h('input', { type: 'range', class: 'step-slider', min: 0, max: 0, step: 1, 'aria-label': `Clip of ${tag} in ${run}` });
    this.slider.addEventListener('input', () => this.select(Number(this.slider.value)));
    this.caption = h('div', { class: 'caption', 'aria-live': 'polite' });
    this.error = h('div', { class: 'card-error', role: 'alert', hidden: true });
    this.el = h('article', { class: 'card audio-card', dataset: { tag, run, state: 'idle' } },
      h('header', { class: 'card-head' }, h('h3', { class: 'card-title', title: tag }, tag), runChip(run, ctx.colorOf(run))),
      this.player, h('div', { class: 'image-controls' }, this.slider), this.caption, this.error);
  }

  fetch(signal) {
    return fetchJSON('audio', { run: this.run, tag: this.tag }, { signal });
  }

  show(body) {
    const before = this.entries.length;
    this.entries = body.entries;
    const n = this.entries.length;
    if (this.index === null || this.index >= n || (this.index === before - 1 && n > before)) this.index = n - 1;
    this.slider.max = String(Math.max(n - 1, 0));
    this.slider.disabled = n <= 1;
    this.select(this.index);
  }

  select(index) {
    if (!this.entries.length) {
      this.player.removeAttribute('src');
      this.caption.textContent = 'No clips yet.';
      return;
    }
    this.index = index;
    this.slider.value = String(index);
    const e = this.entries[index];
    this.el.dataset.step = String(e.step);
    // The wall time keys the browser cache: an index never plays another clip's bytes.
    const src = apiUrl('audio/clip', { run: this.run, tag: this.tag, index, t: e.wall_time });
    if (this.player.getAttribute('src') !== src) this.player.src = src;
    const rate = e.sample_rate >= 1000 ? `${e.sample_rate / 1000} kHz` : `${e.sample_rate} Hz`;
    this.caption.replaceChildren(
      h('span', { class: 'step-label' }, `step ${e.step}`),
      ` · ${fmtWall(e.wall_time)} · ${e.seconds.toFixed(2)} s · ${rate} · ${e.channels === 1 ? 'mono' : `${e.channels} channels`}`,
      ` · ${index + 1} of ${this.entries.length}`,
    );
  }
}
