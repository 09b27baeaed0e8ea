// An audio card: one tag of one run, a step slider over its logged steps (a tick per step),
// a native player per clip of the chosen step (several, each with its index and label, when
// a batch was logged at one step, as tf.summary.audio writes it; their WAVs streamed from the
// log file), and each clip's sample rate, channels and length.

import { apiUrl, fetchJSON } from './api.js';
import { h, runChip } from './dom.js';
import { fmtWall } from './format.js';
import { LazyCard } from './card.js';
import { stepGroups } from './imagesteps.js';

let ticksMade = 0;

function clipFacts(e) {
  const rate = e.sample_rate >= 1000 ? `${e.sample_rate / 1000} kHz` : `${e.sample_rate} Hz`;
  return `${e.seconds.toFixed(2)} s · ${rate} · ${e.channels === 1 ? 'mono' : `${e.channels} channels`}`;
}

export class AudioCard extends LazyCard {
  constructor(tag, run, ctx) {
    super();
    this.tag = tag;
    this.run = run;
    this.entries = [];
    this.groups = null; // the entries' steps: stepGroups(steps)
    this.index = null; // the step shown, by position in this.groups; null: follow the newest
    this.rows = []; // one {row, player, index, label, facts} per clip of the step shown
    this.clips = h('div', { class: 'clips' });
    this.slider = h('input', { type: 'range', class: 'step-slider', min: 0, max: 0, step: 1, 'aria-label': `Step of ${tag} in ${run}` });
    this.slider.addEventListener('input', () => this.select(Number(this.slider.value)));
    this.ticks = h('datalist', { id: `audio-ticks-${++ticksMade}` });
    this.slider.setAttribute('list', this.ticks.id);
    this.caption = h('div', { class: 'caption', 'aria-live': 'polite' });
    this.error = h('div', { class: 'card-error', role: 'alert', hidden: true });
    this.el = h('article', { class: 'card audio-card', dataset: { tag, run, state: 'idle' } },
      h('header', { class: 'card-head' }, h('h3', { class: 'card-title', title: tag }, tag), runChip(run, ctx.colorOf(run))),
      this.clips, h('div', { class: 'image-controls' }, this.slider, this.ticks), this.caption, this.error);
  }

  fetch(signal) {
    return fetchJSON('audio', { run: this.run, tag: this.tag }, { signal });
  }

  show(body) {
    const before = this.groups?.steps.length ?? 0;
    this.entries = body.entries;
    this.groups = stepGroups(this.entries.map((e) => e.step));
    const n = this.groups.steps.length;
    if (this.index === null || this.index >= n || (this.index === before - 1 && n > before)) this.index = n - 1;
    this.slider.max = String(Math.max(n - 1, 0));
    this.slider.disabled = n <= 1;
    if (this.ticks.children.length !== n) {  // a tick per logged step, up to where ticks still read
      this.ticks.replaceChildren(...(n <= 200 ? this.groups.steps.map((_, i) => h('option', { value: String(i) })) : []));
    }
    this.select(this.index);
  }

  /** The rows for `count` clips, made anew only when the count changes. */
  makeRows(count) {
    if (this.rows.length === count) return;
    this.rows = Array.from({ length: count }, (_, k) => {
      const player = h('audio', { controls: true, preload: 'metadata', class: 'player', 'aria-label': `${this.tag} (${this.run}) #${k}` });
      const index = h('span', { class: 'clip-index' }, String(k));
      const label = h('span', { class: 'clip-label' });
      const facts = h('span', { class: 'clip-facts' });
      const row = h('div', { class: 'clip', dataset: { sample: String(k) } },
        h('div', { class: 'clip-head' }, index, label, facts), player);
      return { row, player, index, label, facts };
    });
    this.clips.replaceChildren(...this.rows.map((r) => r.row));
  }

  select(index) {
    const { steps, starts, counts } = this.groups || { steps: [] };
    if (!steps.length) {
      this.makeRows(0);
      this.caption.textContent = 'No clips yet.';
      return;
    }
    this.index = index;
    this.slider.value = String(index);
    const start = starts[index];
    const count = counts[index];
    this.makeRows(count);
    this.el.dataset.step = String(steps[index]);
    this.el.dataset.clips = String(count);
    this.clips.classList.toggle('batch', count > 1);
    this.rows.forEach(({ player, index: number, label, facts }, k) => {
      const at = start + k;
      const e = this.entries[at];
      // The wall time keys the browser cache: an index never plays another clip's bytes.
      const src = apiUrl('audio/clip', { run: this.run, tag: this.tag, index: at, t: e.wall_time });
      if (player.getAttribute('src') !== src) player.src = src;
      number.hidden = count <= 1;
      label.textContent = e.label || '';
      label.hidden = !e.label;
      facts.textContent = clipFacts(e);
      facts.hidden = count <= 1; // one clip: its facts are in the caption
    });
    const first = this.entries[start];
    this.caption.replaceChildren(
      h('span', { class: 'step-label' }, `step ${steps[index]}`),
      ` · ${fmtWall(first.wall_time)} · ${count > 1 ? `${count} clips` : clipFacts(first)}`,
      ` · ${index + 1} of ${steps.length}`,
    );
  }
}
