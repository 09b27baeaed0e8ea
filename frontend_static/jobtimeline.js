// The Jobs tab's restart timeline (/api/job's `writers`): a bar per log file over wall
// time, a row per place (role and rank), coloured by the file's state, killed ends marked.
// Up to ALL_UP_TO places every place has its row; beyond, only the places that restarted
// or did not end cleanly, the first to end first, CAP at most, and a line says how many
// were left out: 10,000 ranks never become 10,000 rows.

import { BASE_LAYOUT, STATE_COLORS, UNCLEAN, attemptText } from './jobchart.js';
import { escPlotly, localMs } from './format.js';
import { h } from './dom.js';

export const ALL_UP_TO = 100;
export const CAP = 100;

const placeOf = (w) => `${w.role}\u0000${w.rank}`;
const label = (w) => `${escPlotly(w.role)} ${w.rank}`;
const when = (t) => (Number.isFinite(t) ? t : Infinity);

/**
 * The files to draw, from `writers` (the API's order: by role, rank, attempt): all of them
 * up to `allUpTo` places; else those of the places that restarted or have a file that did
 * not end cleanly, at most `cap` places, the one whose first such end came first first.
 * Returns {files, places (all), shown (places drawn), notable (places worth a row), note}.
 */
export function timelinePlaces(writers, { allUpTo = ALL_UP_TO, cap = CAP } = {}) {
  const places = new Map();
  for (const w of writers) {
    const key = placeOf(w);
    if (!places.has(key)) places.set(key, []);
    places.get(key).push(w);
  }
  const total = places.size;
  if (total <= allUpTo) return { files: writers, places: total, shown: total, notable: total, note: '' };
  const notable = [];
  for (const [key, files] of places) {
    const bad = files.filter((w) => UNCLEAN.has(w.state));
    if (files.length < 2 && !bad.length) continue;
    // the first end that was not clean, else (an attempt closed, then restarted) the first end
    const first = Math.min(...(bad.length ? bad : files.slice(0, -1)).map((w) => when(w.end_time)));
    notable.push([first, key]);
  }
  notable.sort((a, b) => a[0] - b[0]);
  const chosen = new Set(notable.slice(0, cap).map(([, key]) => key));
  const files = writers.filter((w) => chosen.has(placeOf(w)));
  const n = (x) => x.toLocaleString();
  const left = total - chosen.size;
  let note;
  if (!notable.length) note = `None of the ${n(total)} places restarted or ended uncleanly: no bar drawn.`;
  else if (notable.length <= cap) {
    note = `${n(chosen.size)} of ${n(total)} places drawn, those that restarted or did not end cleanly; `
      + `${n(left)} left out (closed cleanly or running).`;
  } else {
    note = `${n(chosen.size)} of the ${n(notable.length)} places that restarted or did not end cleanly drawn (the first to end first); `
      + `${n(left)} of ${n(total)} places left out.`;
  }
  return { files, places: total, shown: chosen.size, notable: notable.length, note };
}

/** The figure ({data, layout}) of a bar per file of `files`, a row per place. */
export function timelineFigure(files, dateAxis) {
  const labels = [...new Set(files.map(label))];
  const byState = new Map();
  for (const w of files) {
    if (!byState.has(w.state)) byState.set(w.state, { x: [], y: [], text: [] });
    const t = byState.get(w.state);
    const info = `${label(w)} · attempt ${attemptText(w.attempt)} · ${w.state} · steps ${w.first_step ?? '–'}–${w.last_step ?? '–'} · ${escPlotly(w.host)} pid ${w.pid}`;
    t.x.push(localMs(w.start_time), localMs(w.end_time), null);
    t.y.push(label(w), label(w), null);
    t.text.push(info, info, null);
  }
  const data = [...byState].map(([state, t]) => ({
    type: 'scatter', mode: 'lines', name: state, x: t.x, y: t.y, text: t.text,
    line: { color: STATE_COLORS[state] ?? '#777', width: 9 }, hovertemplate: '%{text}<extra></extra>',
  }));
  const ends = files.filter((w) => w.state === 'killed');
  if (ends.length) {
    data.push({
      type: 'scatter', mode: 'markers', name: 'killed here', x: ends.map((w) => localMs(w.end_time)),
      y: ends.map(label), marker: { symbol: 'x', size: 11, color: STATE_COLORS.killed },
      hovertemplate: 'killed at %{x}<extra></extra>',
    });
  }
  // A row of 24 px per place, and the legend above the bars (it covered the first bar).
  const layout = {
    ...BASE_LAYOUT, height: Math.min(1200, 120 + 24 * labels.length), margin: { ...BASE_LAYOUT.margin, t: 58 },
    legend: { orientation: 'h', x: 1, xanchor: 'right', y: 1, yanchor: 'bottom' },
    title: { text: 'Restarts: one bar per log file', font: { size: 12 }, x: 0.01, xanchor: 'left' },
    xaxis: dateAxis, yaxis: { type: 'category', categoryarray: labels.slice().reverse(), automargin: true },
  };
  return { data, layout };
}

export class JobTimeline {
  /** Draws into the plot `el`, with its note (how many places were left out) after it. */
  constructor(el) {
    this.el = el;
    this.note = h('p', { class: 'card-note job-timeline-note' });
    el.after(this.note);
  }

  draw(writers, dateAxis, config) {
    const chosen = timelinePlaces(writers);
    const { data, layout } = timelineFigure(chosen.files, dateAxis);
    this.note.textContent = chosen.note;
    Plotly.react(this.el, data, layout, config);
  }
}
