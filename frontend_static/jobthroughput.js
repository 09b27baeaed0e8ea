// The Jobs tab's throughput per rank (/api/job's `throughput`, stragglers flagged). Up to
// BARS_UP_TO places: a bar per place, the stragglers' bars red. Beyond: per role one line
// over the ranks, and the stragglers as red spikes of one more trace, so 10,000 ranks
// cost the page as many elements as 300 (plotly draws a trace's line as one path).

import { BASE_LAYOUT, STRAGGLER_COLOR, roleColor } from './jobchart.js';
import { escPlotly, fmtValue } from './format.js';

export const BARS_UP_TO = 200;

const rate = (e) => e.recent_steps_per_second ?? e.steps_per_second ?? 0;
const note = (e) => (e.straggler ? 'straggler' : (e.recovering ? 'recovering from a restart' : ''));
const details = (e) => [fmtValue(e.steps_per_second ?? NaN), e.last_step ?? '–', note(e)];
const HOVER = 'steps/s recently, %{customdata[0]} overall · last step %{customdata[1]} %{customdata[2]}<extra></extra>';

/** The figure ({data, layout}) of the throughput of `job`'s places, per role of `roles`. */
export function throughputFigure(job, roles) {
  const places = roles.reduce((n, role) => n + (job.throughput[role]?.length ?? 0), 0);
  return places <= BARS_UP_TO ? bars(job, roles) : lines(job, roles, places);
}

function bars(job, roles) {
  const data = roles.map((role) => {
    const entries = job.throughput[role] ?? [];
    return {
      type: 'bar', name: escPlotly(role), x: entries.map((e) => `${escPlotly(role)} ${e.rank}`), y: entries.map(rate),
      marker: { color: entries.map((e) => (e.straggler ? STRAGGLER_COLOR : roleColor(roles, role))) },
      customdata: entries.map(details), hovertemplate: `%{x}: %{y:.3g} ${HOVER}`,
    };
  });
  return {
    data,
    layout: {
      ...BASE_LAYOUT, title: { text: 'Throughput (steps/s, recent; stragglers, below 80% of the median, in red)', font: { size: 12 } },
      xaxis: { type: 'category', automargin: true }, yaxis: { rangemode: 'tozero', gridcolor: '#eee' }, bargap: 0.15,
    },
  };
}

function lines(job, roles, places) {
  const data = [];
  const spikes = { x: [], y: [], customdata: [], text: [] };
  for (const role of roles) {
    const entries = job.throughput[role] ?? []; // by rank (the server sorts them)
    const name = escPlotly(role);
    data.push({
      type: 'scatter', mode: 'lines', name, x: entries.map((e) => e.rank), y: entries.map(rate),
      line: { width: 1, color: roleColor(roles, role) }, customdata: entries.map(details), meta: { role, kind: 'rate' },
      hovertemplate: `${name} %{x}: %{y:.3g} ${HOVER}`,
    });
    const median = job.median_recent_steps_per_second?.[role];
    if (median && entries.length) {
      data.push({
        type: 'scatter', mode: 'lines', name: `${name} 80% of median`, meta: { role, kind: 'threshold' },
        x: [entries[0].rank, entries[entries.length - 1].rank], y: [0.8 * median, 0.8 * median],
        line: { width: 1, dash: 'dot', color: roleColor(roles, role) },
        hovertemplate: `80% of the ${name}s' median: %{y:.3g} steps/s<extra></extra>`,
      });
    }
    for (const e of entries) {
      if (!e.straggler) continue;
      const label = `${name} ${e.rank}: ${Number(rate(e).toPrecision(3))}`;
      spikes.x.push(e.rank, e.rank, null);
      spikes.y.push(0, rate(e), null);
      spikes.text.push(label, label, null);
      spikes.customdata.push(details(e), details(e), null);
    }
  }
  const count = spikes.text.length / 3;
  if (count) {
    data.push({
      type: 'scatter', mode: 'lines', name: `stragglers (${count.toLocaleString()})`, x: spikes.x, y: spikes.y,
      text: spikes.text, customdata: spikes.customdata, line: { width: 2, color: STRAGGLER_COLOR }, meta: { kind: 'stragglers' },
      hovertemplate: `%{text}: ${HOVER}`,
    });
  }
  return {
    data,
    layout: {
      ...BASE_LAYOUT,
      title: { text: `Throughput of ${places.toLocaleString()} ranks (steps/s, recent; stragglers in red)`, font: { size: 12 } },
      margin: { ...BASE_LAYOUT.margin, t: 48 }, legend: { orientation: 'h', x: 0, y: 1, yanchor: 'bottom' },
      xaxis: { title: { text: 'rank' }, zeroline: false, gridcolor: '#eee' },
      yaxis: { rangemode: 'tozero', gridcolor: '#eee' }, hovermode: 'closest',
    },
  };
}
