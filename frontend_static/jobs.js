// The Jobs tab: one run of several ranks (a distributed job) from /api/job, composed of its
// parts: ranks alive over time per role and the step skew between the ranks of a role
// (drawn here), the restart timeline (jobtimeline.js), throughput per rank with the
// stragglers in red (jobthroughput.js), the virtualised table of writers (jobtable.js),
// and the cards of the other job modules. Every plot is a handful of traces and the
// table a few dozen rows, however many ranks the job has.

import { getJSON } from './api.js';
import { h } from './dom.js';
import { escPlotly, localMs } from './format.js';
import { GoodputView } from './jobgoodput.js';
import { JobHeatmap } from './jobheatmap.js';
import { JobEnds } from './jobends.js';
import { JobWrong } from './jobwrong.js';
import { StragglerCauses } from './jobstragglers.js';
import { mountSystem } from './jobsystem.js';
import { BASE_LAYOUT, CONFIG, roleColor } from './jobchart.js';
import { JobTable } from './jobtable.js';
import { JobTimeline } from './jobtimeline.js';
import { throughputFigure } from './jobthroughput.js';
import { whenPlotly } from './renderqueue.js';

const LISTED = 10; // stragglers named per role in the summary line

/** "3, 7, 12", or the first LISTED ranks "and 93 more". */
const namedRanks = (ranks) => ranks.slice(0, LISTED).join(', ')
  + (ranks.length > LISTED ? ` and ${(ranks.length - LISTED).toLocaleString()} more` : '');

/** Runs written by two or more ranked processes. */
export function jobRuns(runs) {
  return runs.filter((r) => new Set(r.writers.filter((w) => w.rank >= 0).map((w) => `${w.role}/${w.rank}`)).size >= 2)
    .map((r) => r.name);
}

export class JobsView {
  constructor(panel, ctx) {
    this.ctx = ctx;
    this.select = panel.querySelector('#job-run');
    this.summary = panel.querySelector('.job-summary');
    this.empty = panel.querySelector('.empty');
    this.body = panel.querySelector('.job-body');
    this.plots = {
      alive: panel.querySelector('#job-alive'),
      throughput: panel.querySelector('#job-throughput'),
      skew: panel.querySelector('#job-skew'),
    };
    this.timeline = new JobTimeline(panel.querySelector('#job-timeline'));
    this.table = new JobTable(panel.querySelector('.job-writers-card'));
    this.goodput = new GoodputView(this.body);
    this.heatmap = new JobHeatmap(panel.querySelector('.job-grid'));
    this.ends = new JobEnds(panel.querySelector('.job-grid'), () => this.run);
    this.wrong = new JobWrong(this.body); // the first rank to go wrong (jobwrong.js)
    this.causes = new StragglerCauses(this.body); // why the stragglers are slow (jobstragglers.js)
    this.system = mountSystem(panel);
    this.run = null;
    this.seq = 0;
    this.select.addEventListener('change', () => {
      this.run = this.select.value;
      this.refresh();
    });
  }

  update() {
    const runs = jobRuns(this.ctx.state.runs).filter((name) => this.ctx.runMatches(name));
    const current = [...this.select.options].map((o) => o.value);
    if (runs.join('\n') !== current.join('\n')) {
      this.select.replaceChildren(...runs.map((name) => h('option', { value: name }, name)));
    }
    const before = this.run;
    if (!runs.includes(this.run)) this.run = runs[0] ?? null;
    if (this.run) this.select.value = this.run;
    if (this.run && this.run !== before) this.refresh();
    this.empty.hidden = Boolean(this.run);
    this.body.hidden = !this.run;
    this.empty.textContent = this.run ? '' : 'No job yet: a job is a run written by several ranked processes '
      + '(LogWriter(rank=..., world_size=..., role=...) or a launcher such as torchrun, PaddlePaddle, MPI or SLURM).';
  }

  async refresh() {
    if (!this.run) return;
    const seq = ++this.seq;
    this.wrong.load(this.run);
    try {
      const job = await getJSON('job', { run: this.run });
      if (seq === this.seq) whenPlotly(() => seq === this.seq && this.draw(job));
    } catch (error) {
      if (seq === this.seq) this.summary.textContent = `Cannot load the job: ${error.message}`;
    }
  }

  draw(job) {
    const roles = job.roles.map((r) => r.role);
    this.heatmap.show(this.run, roles, job.system);
    const color = (role) => roleColor(roles, role);
    const times = job.times.map(localMs);
    const killed = job.writers.filter((w) => w.state === 'killed').length;
    const stragglers = Object.entries(job.stragglers).filter(([, ranks]) => ranks.length)
      .map(([role, ranks]) => `${role} ${namedRanks(ranks)}`);
    this.summary.textContent = [
      job.roles.map((r) => `${r.places} ${r.role}${r.places === 1 ? '' : 's'}`).join(', '),
      `${job.writers.length} log files`,
      `${job.restarts.length} restarted rank${job.restarts.length === 1 ? '' : 's'} (${killed} killed)`,
      stragglers.length ? `stragglers: ${stragglers.join('; ')}` : 'no stragglers (no rank below 80% of its role\'s median recent rate)',
    ].join(' · ');
    this.goodput.draw(job);
    this.causes.draw(this.run, job);
    const dateAxis = { type: 'date', gridcolor: '#eee' };
    this.ends.draw(job);

    Plotly.react(this.plots.alive, roles.map((role) => ({
      type: 'scatter', mode: 'lines', name: escPlotly(role), x: times, y: job.alive[role], line: { shape: 'hv', color: color(role) },
      hovertemplate: `${escPlotly(role)}: %{y} alive<extra></extra>`,
    })), { ...BASE_LAYOUT, title: { text: 'Ranks alive', font: { size: 12 } }, xaxis: dateAxis,
      yaxis: { title: { text: 'processes' }, rangemode: 'tozero', gridcolor: '#eee' } }, CONFIG);

    this.timeline.draw(job.writers, dateAxis, CONFIG);
    const throughput = throughputFigure(job, roles);
    Plotly.react(this.plots.throughput, throughput.data, throughput.layout, CONFIG);

    // The first role (the trainers) drawn last, on top, in solid lines; the others dotted with a
    // lighter band beneath: the trainers hid under the pservers' band.
    const skew = [];
    for (const role of [...roles].reverse()) {
      const s = job.skew[role];
      const main = role === roles[0];
      const line = { width: main ? 1.5 : 1, color: color(role), dash: main ? 'solid' : 'dot' };
      skew.push({
        type: 'scatter', mode: 'lines', name: `${escPlotly(role)} slowest`, x: times, y: s.min_step, line,
        customdata: s.slowest_rank, hovertemplate: `${escPlotly(role)} lowest step %{y} (rank %{customdata})<extra></extra>`, showlegend: false,
      }, {
        type: 'scatter', mode: 'lines', name: escPlotly(role), x: times, y: s.max_step, line,
        fill: 'tonexty', fillcolor: `${color(role)}${main ? '40' : '18'}`, meta: { role },
        customdata: s.max_step.map((hi, i) => (hi === null || s.min_step[i] === null ? null : hi - s.min_step[i])),
        hovertemplate: `${escPlotly(role)} highest step %{y} · skew %{customdata} steps<extra></extra>`,
      });
    }
    Plotly.react(this.plots.skew, skew, {
      ...BASE_LAYOUT, title: { text: 'Step reached, lowest to highest rank (the band is the skew)', font: { size: 12 } },
      xaxis: dateAxis, yaxis: { title: { text: 'step' }, gridcolor: '#eee' },
    }, CONFIG);

    this.table.draw(job.writers);
    this.system.draw(this.run, job);
  }
}
