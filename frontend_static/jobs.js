// The Jobs tab: one run of several ranks (a distributed job) from /api/job: ranks alive
// over time per role, the restart timeline (one bar per log file, killed ones marked),
// throughput per rank with the stragglers in red, the step skew between the ranks of a
// role over time, and the table of writers. Every plot is a handful of traces, however
// many ranks the job has.

import { getJSON } from './api.js';
import { h } from './dom.js';
import { escPlotly, fmtValue, fmtWall, localMs } from './format.js';
import { GoodputView } from './jobgoodput.js';
import { JobHeatmap } from './jobheatmap.js';
import { JobEnds } from './jobends.js';
import { JobWrong } from './jobwrong.js';
import { StragglerCauses } from './jobstragglers.js';
import { mountSystem } from './jobsystem.js';
import { whenPlotly } from './renderqueue.js';

const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['select2d', 'lasso2d'] };
const STATE_COLORS = {
  closed: '#2e7d32', running: '#1565c0', silent: '#f9a825', killed: '#c62828', raised: '#ad1457', signalled: '#6a1b9a', crashed: '#4e342e',
};
const ROLE_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b'];
/** An attempt number as people count them; -1 (the launcher gave none) as a dash. */
const attemptText = (attempt) => (attempt < 0 ? '—' : String(attempt));

const BASE_LAYOUT = {
  height: 260,
  margin: { l: 64, r: 14, t: 30, b: 40 },
  font: { family: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif', size: 11, color: '#333' },
  paper_bgcolor: '#fff',
  plot_bgcolor: '#fff',
  legend: { orientation: 'h', y: 1.14, x: 0 },
};

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
      timeline: panel.querySelector('#job-timeline'),
      throughput: panel.querySelector('#job-throughput'),
      skew: panel.querySelector('#job-skew'),
    };
    this.table = panel.querySelector('#job-writers');
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
    const color = (role) => ROLE_COLORS[roles.indexOf(role) % ROLE_COLORS.length];
    const times = job.times.map(localMs);
    const killed = job.writers.filter((w) => w.state === 'killed').length;
    const stragglers = Object.entries(job.stragglers).filter(([, ranks]) => ranks.length)
      .map(([role, ranks]) => `${role} ${ranks.join(', ')}`);
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

    const labels = [...new Set(job.writers.map((w) => `${escPlotly(w.role)} ${w.rank}`))];
    const byState = new Map();
    for (const w of job.writers) {
      if (!byState.has(w.state)) byState.set(w.state, { x: [], y: [], text: [] });
      const t = byState.get(w.state);
      const label = `${escPlotly(w.role)} ${w.rank}`;
      const info = `${label} · attempt ${attemptText(w.attempt)} · ${w.state} · steps ${w.first_step ?? '–'}–${w.last_step ?? '–'} · ${escPlotly(w.host)} pid ${w.pid}`;
      t.x.push(localMs(w.start_time), localMs(w.end_time), null);
      t.y.push(label, label, null);
      t.text.push(info, info, null);
    }
    const bars = [...byState].map(([state, t]) => ({
      type: 'scatter', mode: 'lines', name: state, x: t.x, y: t.y, text: t.text,
      line: { color: STATE_COLORS[state] ?? '#777', width: 9 }, hovertemplate: '%{text}<extra></extra>',
    }));
    const ends = job.writers.filter((w) => w.state === 'killed');
    if (ends.length) {
      bars.push({
        type: 'scatter', mode: 'markers', name: 'killed here', x: ends.map((w) => localMs(w.end_time)),
        y: ends.map((w) => `${escPlotly(w.role)} ${w.rank}`), marker: { symbol: 'x', size: 11, color: STATE_COLORS.killed },
        hovertemplate: 'killed at %{x}<extra></extra>',
      });
    }
    // A row of 24 px per rank, and the legend above the bars (it covered the first bar).
    Plotly.react(this.plots.timeline, bars, {
      ...BASE_LAYOUT, height: Math.min(1200, 120 + 24 * labels.length), margin: { ...BASE_LAYOUT.margin, t: 58 },
      legend: { orientation: 'h', x: 1, xanchor: 'right', y: 1, yanchor: 'bottom' },
      title: { text: 'Restarts: one bar per log file', font: { size: 12 }, x: 0.01, xanchor: 'left' },
      xaxis: dateAxis, yaxis: { type: 'category', categoryarray: labels.slice().reverse(), automargin: true },
    }, CONFIG);

    const throughput = [];
    for (const role of roles) {
      const entries = job.throughput[role] ?? [];
      throughput.push({
        type: 'bar', name: escPlotly(role), x: entries.map((e) => `${escPlotly(role)} ${e.rank}`),
        y: entries.map((e) => e.recent_steps_per_second ?? e.steps_per_second ?? 0),
        marker: { color: entries.map((e) => (e.straggler ? STATE_COLORS.killed : color(role))) },
        customdata: entries.map((e) => [fmtValue(e.steps_per_second ?? NaN), e.last_step ?? '–', e.straggler ? 'straggler' : (e.recovering ? 'recovering from a restart' : '')]),
        hovertemplate: '%{x}: %{y:.3g} steps/s recently, %{customdata[0]} overall · last step %{customdata[1]} %{customdata[2]}<extra></extra>',
      });
    }
    Plotly.react(this.plots.throughput, throughput, {
      ...BASE_LAYOUT, title: { text: 'Throughput (steps/s, recent; stragglers, below 80% of the median, in red)', font: { size: 12 } },
      xaxis: { type: 'category', automargin: true }, yaxis: { rangemode: 'tozero', gridcolor: '#eee' }, bargap: 0.15,
    }, CONFIG);

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

    const rows = job.writers.map((w) => h('tr', { class: `state-${w.state}` },
      h('td', {}, w.role), h('td', {}, String(w.rank)), h('td', { title: w.attempt < 0 ? 'the launcher gave no attempt number' : '' }, attemptText(w.attempt)), h('td', {}, w.state),
      h('td', {}, `${w.first_step ?? '–'}–${w.last_step ?? '–'}`), h('td', {}, String(w.points)),
      h('td', {}, fmtWall(w.start_time)), h('td', {}, fmtWall(w.end_time)), h('td', {}, `${w.host} ${w.pid}`),
      h('td', { class: 'muted' }, w.file)));
    this.table.replaceChildren(...rows);
    this.system.draw(this.run, job);
  }
}
