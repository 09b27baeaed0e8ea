// The "System" section of the Jobs tab: one chart per system metric the job records
// (LogWriter(system_metrics=True)), grouped by scope (process, host, GPU), each with per
// role the median over ranks and its p25-p75 and p5-p95 bands from /api/job/system, the
// unit on the y axis. A handful of traces per chart, however many ranks the job has.

import { getJSON } from './api.js';
import { h } from './dom.js';
import { escPlotly, localMs } from './format.js';

const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['select2d', 'lasso2d'] };
const ROLE_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b'];
const SCOPE_TITLES = { process: 'Process (each rank)', host: 'Host (once per host)', gpu: 'GPU (each GPU of a rank)' };
/** The y axis of a unit: its title and its ticks (SI prefixes for bytes). */
const UNIT_AXES = {
  percent: { title: '%', tickformat: '.3~g' },
  bytes: { title: 'bytes', tickformat: '.3~s' },
  'bytes/s': { title: 'bytes/s', tickformat: '.3~s' },
  W: { title: 'W', tickformat: '.4~g' },
  C: { title: '°C', tickformat: '.3~g' },
  MHz: { title: 'MHz', tickformat: '.4~g' },
  count: { title: 'count', tickformat: '.3~g' },
  bitmask: { title: 'bitmask', tickformat: 'd' },
};

const LAYOUT = {
  height: 230,
  margin: { l: 64, r: 14, t: 30, b: 36 },
  font: { family: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif', size: 11, color: '#333' },
  paper_bgcolor: '#fff',
  plot_bgcolor: '#fff',
  legend: { orientation: 'h', y: 1.16, x: 1, xanchor: 'right' },
};

const hex = (color, alpha) => `${color}${alpha}`;

/** The traces of one metric: per role its p5-p95 band, its p25-p75 band and its median. */
export function systemTraces(metric) {
  const times = metric.times.map(localMs);
  const out = [];
  metric.roles.forEach((role, i) => {
    const color = ROLE_COLORS[i % ROLE_COLORS.length];
    const name = escPlotly(role.role);
    const band = (lo, hi, alpha, label) => [
      { type: 'scatter', mode: 'lines', x: times, y: role[lo], line: { width: 0, color }, hoverinfo: 'skip',
        showlegend: false, meta: { kind: lo, role: role.role } },
      { type: 'scatter', mode: 'lines', x: times, y: role[hi], line: { width: 0, color }, fill: 'tonexty',
        fillcolor: hex(color, alpha), name: `${name} ${label}`, hoverinfo: 'skip', showlegend: false,
        meta: { kind: hi, role: role.role } },
    ];
    out.push(...band('p5', 'p95', '22', 'p5–p95'), ...band('p25', 'p75', '44', 'p25–p75'));
    out.push({
      type: 'scatter', mode: 'lines', name: `${name} median`, x: times, y: role.median, line: { width: 1.5, color },
      customdata: role.count.map((n, k) => [n, role.min_rank[k], role.max_rank[k]]),
      hovertemplate: `${name} median %{y} over %{customdata[0]} · min rank %{customdata[1]}, max rank %{customdata[2]}<extra></extra>`,
      meta: { kind: 'median', role: role.role },
    });
  });
  return out;
}

class SystemSection {
  constructor(section) {
    this.section = section;
    this.note = section.querySelector('.job-system-note');
    this.charts = section.querySelector('.job-system-charts');
    this.seq = 0;
  }

  async draw(run, job) {
    const seq = ++this.seq;
    const listed = job.system ?? [];
    this.section.hidden = !listed.length;
    const drawn = this.charts.dataset.metrics;
    const names = listed.map((m) => m.metric).join('\n');
    if (drawn !== names || this.charts.dataset.run !== run) {
      // one card per metric, by scope, in the order /api/job lists them
      const groups = [];
      for (const scope of ['process', 'host', 'gpu']) {
        const metrics = listed.filter((m) => m.scope === scope);
        if (!metrics.length) continue;
        groups.push(h('h4', {}, SCOPE_TITLES[scope]), h('div', { class: 'job-grid' }, metrics.map((m) => h(
          'div', { class: 'card job-system-chart', 'data-metric': m.metric },
          h('div', { class: 'plot', 'aria-label': `${m.metric} over time` })))));
      }
      this.charts.replaceChildren(...groups);
      this.charts.dataset.metrics = names;
      this.charts.dataset.run = run;
    }
    if (!listed.length) return;
    this.note.textContent = 'Median over the ranks of each role, with the p25–p75 and p5–p95 bands; '
      + 'a rank\'s value at a time is its last sample then.';
    // A metric per request: each chart draws as soon as its bands come, however many ranks.
    for (const { metric } of listed) {
      let answer;
      try {
        answer = await getJSON('job/system', { run, metric, points: 200 });
      } catch (error) {
        if (seq === this.seq) this.note.textContent = `Cannot load the system metric ${metric}: ${error.message}`;
        continue;
      }
      if (seq !== this.seq) return;
      const card = [...this.charts.querySelectorAll('.job-system-chart')].find((c) => c.dataset.metric === metric);
      if (card) this.plot(card.querySelector('.plot'), answer.metrics[0]);
    }
  }

  plot(el, metric) {
    const axis = UNIT_AXES[metric.unit] ?? { title: metric.unit, tickformat: '.3~g' };
    Plotly.react(el, systemTraces(metric), {
      ...LAYOUT,
      title: { text: `${escPlotly(metric.scope)} ${escPlotly(metric.name)}`, font: { size: 12 }, x: 0.01, xanchor: 'left' },
      xaxis: { type: 'date', gridcolor: '#eee' },
      yaxis: { title: { text: escPlotly(axis.title) }, tickformat: axis.tickformat, gridcolor: '#eee', rangemode: 'tozero' },
    }, CONFIG);
  }
}

/** Add the System section to the Jobs panel; ``draw(run, job)`` fills it from /api/job's answer. */
export function mountSystem(panel) {
  const section = h('section', { class: 'job-system', hidden: true },
    h('h3', {}, 'System'),
    h('p', { class: 'muted job-system-note' }),
    h('div', { class: 'job-system-charts' }));
  panel.querySelector('.job-body').append(section);
  return new SystemSection(section);
}
