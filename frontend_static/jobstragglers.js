// The Jobs tab's "why slow" lines, from /api/job/stragglers: per straggler, the system
// metric that sets it apart from its role's median at the same time, and its host's.
// Asked for only when the job page names stragglers (the answer reads every system metric).

import { getJSON } from './api.js';
import { h } from './dom.js';

export class StragglerCauses {
  constructor(parent) {
    this.box = h('div', { class: 'job-stragglers' });
    parent.prepend(this.box);
    this.seq = 0;
  }

  async draw(run, job) {
    const seq = ++this.seq;
    const any = Object.values(job.stragglers).some((ranks) => ranks.length);
    if (!any || !job.system?.length) {
      this.box.replaceChildren();
      return;
    }
    try {
      const answer = await getJSON('job/stragglers', { run });
      if (seq !== this.seq) return;
      this.box.replaceChildren(
        h('div', { class: 'job-stragglers-title' }, 'Why the stragglers are slow'),
        h('ul', {}, ...answer.stragglers.map((s) => h('li', {}, s.text))),
      );
    } catch (error) {
      if (seq === this.seq) this.box.replaceChildren(h('div', {}, `Cannot explain the stragglers: ${error.message}`));
    }
  }
}
