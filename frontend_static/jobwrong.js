// The Jobs tab's "first rank to go wrong" card, from /api/job/wrong: per tag its first
// non-finite value (step, rank, role, wall time), and per replicated tag the first step at
// which the ranks disagree and which ranks. A table of a row per tag, however many ranks.

import { getJSON } from './api.js';
import { h } from './dom.js';
import { fmtWall } from './format.js';

const WHY = { declared: 'declared by the writer', setting: 'named by --replicated-tags', detected: 'equal on most steps' };

export class JobWrong {
  constructor(parent) {
    this.title = h('h3', { class: 'card-title' }, 'First rank to go wrong');
    this.body = h('tbody');
    this.note = h('p', { class: 'muted' });
    this.el = h('div', { class: 'table-wrap card job-wrong', 'aria-label': 'first rank to go wrong' }, this.title, this.note,
      h('table', {}, h('thead', {}, h('tr', {}, ...['Tag', 'What', 'Step', 'Rank(s)', 'When', 'Why'].map((t) => h('th', {}, t)))), this.body));
    parent.append(this.el);
    this.seq = 0;
  }

  async load(run) {
    const seq = ++this.seq;
    try {
      const found = await getJSON('job/wrong', { run });
      if (seq === this.seq) this.draw(found);
    } catch (error) {
      if (seq === this.seq) this.note.textContent = `Cannot load what went wrong: ${error.message}`;
    }
  }

  draw(found) {
    const who = (role, ranks) => `${role || 'rank'} ${ranks.join(', ')}`;
    const rows = [
      ...found.nonfinite.map((f) => h('tr', { class: 'wrong-nonfinite', dataset: { tag: f.tag } },
        h('td', {}, f.tag), h('td', {}, `first ${f.value}`), h('td', {}, f.step.toLocaleString()),
        h('td', {}, f.rank >= 0 ? who(f.role, [f.rank]) : 'unranked'), h('td', {}, f.wall_time === null ? '–' : fmtWall(f.wall_time)),
        h('td', { class: 'muted' }, f.file))),
      ...found.divergence.map((d) => h('tr', { class: 'wrong-divergence', dataset: { tag: d.tag } },
        h('td', {}, d.tag), h('td', {}, 'ranks disagree'), h('td', {}, d.step.toLocaleString()),
        h('td', {}, `${who(d.role, d.ranks)}${d.minority > d.ranks.length ? ` and ${d.minority - d.ranks.length} more` : ''} of ${d.points}`),
        h('td', {}, '–'), h('td', { class: 'muted' }, WHY[d.why] ?? d.why))),
    ];
    this.body.replaceChildren(...rows);
    this.note.textContent = rows.length ? '' : 'No NaN or infinity logged, and no replicated tag on which the ranks disagree.';
  }
}
