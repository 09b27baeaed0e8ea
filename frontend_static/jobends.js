// How a job's processes ended, from /api/job's "ends": the first end that was not a clean
// close (who, how, at what step and time), then the others grouped by how they ended, each
// group folded with its first members listed and the rest counted (10,000 ranks make a few
// lines, not 10,000 rows). A click on the first end or on a member fetches that writer's
// traceback from /api/job/end; /api/job itself carries none.

import { getJSON } from './api.js';
import { h } from './dom.js';
import { fmtClock } from './format.js';

const at = (seconds) => (Number.isFinite(seconds) ? `, ${fmtClock(seconds)}` : '');
const offset = (seconds) => (Number.isFinite(seconds) ? ` · ${seconds >= 0 ? '+' : '−'}${Math.abs(seconds).toFixed(1)} s` : '');

export class JobEnds {
  /** A card at the top of ``grid`` (the jobs view's grid); ``run()`` names the job shown. */
  constructor(grid, run) {
    this.run = run;
    this.first = h('p', { class: 'job-ends-first' });
    this.groups = h('ul', { class: 'job-ends-groups' });
    this.traceback = h('pre', { class: 'job-ends-traceback', hidden: true, 'aria-label': 'traceback' });
    this.card = h('div', { class: 'card wide job-ends', 'aria-label': 'how the processes ended' },
      h('h3', { class: 'card-title' }, 'How the processes ended'), this.first, this.groups, this.traceback);
    grid.prepend(this.card);
    this.seq = 0;
    this.drawn = null;
    this.opened = new Set(); // the groups unfolded, kept across the live refreshes
  }

  draw(job) {
    const ends = job.ends;
    // A live job is redrawn every few seconds: unchanged ends are left as they are, and a
    // traceback shown or a group unfolded stays so.
    const drawn = JSON.stringify([this.run(), ends]);
    if (drawn === this.drawn) return;
    if (this.drawn !== null && JSON.parse(this.drawn)[0] !== this.run()) {
      this.traceback.hidden = true;
      this.opened.clear();
    }
    this.drawn = drawn;
    this.groups.replaceChildren();
    if (!ends.first) {
      this.first.replaceChildren(`No process has ended yet (${ends.running} running).`);
      return;
    }
    if (ends.first.how === 'closed' && ends.groups.every((g) => g.how === 'closed')) {
      this.first.replaceChildren(`All ${ends.ended} processes closed cleanly${ends.running ? ` (${ends.running} running)` : ''}.`);
      return;
    }
    const first = ends.first;
    this.first.replaceChildren(
      h('span', { class: `job-ends-how how-${first.how.replace(' ', '-')}` }, `${first.text}${at(first.wall_time)}`),
      first.cause ? h('span', { class: 'muted' }, ` (${first.cause})`) : '',
      ' ', this.button(first, first.has_traceback ? 'traceback' : 'details'),
    );
    const groupKey = (g) => `${g.how}|${g.signal}|${g.exception_type}`;
    this.groups.replaceChildren(...ends.groups.map((g) => h('li', {},
      h('details', {
        open: this.opened.has(groupKey(g)),
        ontoggle: (event) => (event.target.open ? this.opened.add(groupKey(g)) : this.opened.delete(groupKey(g))),
      },
        h('summary', {}, g.text),
        h('ul', { class: 'job-ends-members' },
          ...g.members.map((m) => h('li', {}, this.button(m, `${m.role || 'rank'} ${m.rank}`),
            ` attempt ${m.attempt} · step ${m.step?.toLocaleString('en-US') ?? '–'}${offset(m.wall_time - first.wall_time)}`)),
          g.more ? h('li', { class: 'muted' }, `and ${g.more.toLocaleString()} more`) : '')))));
    if (ends.running) this.groups.append(h('li', { class: 'muted' }, `${ends.running.toLocaleString()} still running`));
  }

  button(member, label) {
    return h('button', { type: 'button', class: 'job-ends-open', onclick: () => this.open(member.file) }, label);
  }

  async open(file) {
    const seq = ++this.seq;
    this.traceback.hidden = false;
    this.traceback.textContent = 'Loading…';
    try {
      const answer = await getJSON('job/end', { run: this.run(), file });
      if (seq !== this.seq) return;
      const end = answer.ended;
      const who = `${answer.role || 'rank'} ${answer.rank} (attempt ${answer.attempt}, ${answer.file})`;
      this.traceback.textContent = !end ? `${who}: still running.`
        : end.traceback ? `${who}\n\n${end.traceback}`
          : `${who}: ${end.how}${end.signal ? ` ${end.signal}` : ''}${end.cause ? ` (${end.cause})` : ''}; no traceback.`;
    } catch (error) {
      if (seq === this.seq) this.traceback.textContent = `Cannot load this end: ${error.message}`;
    }
  }
}
