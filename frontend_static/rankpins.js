// One rank's own line pinned on a job chart: a click on a band's edge (min, p5, p25, p75,
// p95, max) or on the median fetches the rank holding that edge there (/api/scalars with rank=ROLE/RANK: that rank's
// series alone, no aggregation) and draws it; a second click on an edge held by the same
// rank, or a click on its legend entry, removes it.

import { fetchJSON } from './api.js';

/** The name of a pinned rank's line (its legend entry and trace meta.run). */
export const pinName = (job, role, rank) => `${job} · ${role} ${rank} (pinned)`;

/** The traces (meta.kind) whose points name a rank a click pins: customdata[5]. */
export const EDGE_KINDS = new Set(['band-min', 'band-p5', 'band-p25', 'median', 'band-p75', 'band-p95', 'band-max']);

/**
 * Of a plotly click's points, the band edge (EDGE_KINDS) nearest the pointer's height:
 * {job, role, rank} or null. In 'x unified' hover every trace has a point at the x clicked.
 */
export function edgeAt(points, pointerY) {
  let best = null;
  for (const p of points) {
    if (!EDGE_KINDS.has(p.data?.meta?.kind)) continue;
    const rank = p.customdata?.[5];
    if (rank === undefined || rank === null || rank < 0) continue;
    const distance = pointerY === null ? 0 : Math.abs(p.yPixel - pointerY);
    const names = p.data.meta.names; // a group of runs: the edge's holder is a member run
    if (!best || distance < best.distance) best = { distance, job: p.data.meta.job, role: p.data.meta.role, rank, member: names?.[rank] };
  }
  if (!best) return null;
  return best.member !== undefined ? { member: best.member } : { job: best.job, role: best.role, rank: best.rank };
}

export class RankPins {
  /** tag: the chart's tag; redraw(): called when a pinned line arrives or goes. */
  constructor(tag, redraw) {
    this.tag = tag;
    this.redraw = redraw;
    this.pins = new Map(); // name -> {job, role, rank, line: null until fetched}
  }

  has(name) {
    return this.pins.has(name);
  }

  /** Pin the rank's line (a group's member run's, given `member`), or unpin it if it is pinned. */
  toggle({ job, role, rank, member }) {
    const name = member !== undefined ? `${member} (pinned)` : pinName(job, role, rank);
    if (this.pins.delete(name)) {
      this.redraw();
      return;
    }
    const pin = { job, role, rank, member, line: null };
    this.pins.set(name, pin);
    const query = member !== undefined ? { tag: this.tag, run: member } : { tag: this.tag, run: job, rank: `${role}/${rank}` };
    fetchJSON('scalars', query).then(({ body }) => {
      if (this.pins.get(name) !== pin) return; // removed meanwhile
      pin.line = member !== undefined ? body.runs[0] ?? null : body.runs[0]?.per_rank?.[0] ?? null;
      this.redraw();
    }, (error) => {
      this.pins.delete(name);
      console.warn(`cannot pin ${name}: ${error.message}`);
    });
  }

  remove(name) {
    if (this.pins.delete(name)) this.redraw();
  }

  /** Drop the pins of runs no longer shown (a group member's: when the run is not selected). */
  keep(runs) {
    for (const [name, pin] of this.pins) if (!runs.includes(pin.member ?? pin.job)) this.pins.delete(name);
  }

  /** The pinned lines as series of the figure (buildFigure draws them as lines of their own). */
  series() {
    const out = [];
    for (const [name, pin] of this.pins) {
      if (!pin.line) continue;
      out.push({ ...pin.line, run: name, colorKey: name, job: pin.member ?? pin.job, pinned: true });
    }
    return out;
  }
}

/**
 * A plotly_click on chart `div`: the pointer's height in the chart (null without a pointer
 * event) and the points clicked, each with its height in pixels ({data, customdata, yPixel}).
 */
export function clickedPoints(event, div) {
  const pointerY = event.event ? event.event.clientY - div.getBoundingClientRect().top : null;
  const points = (event.points ?? []).map((p) => ({
    data: p.data,
    customdata: p.customdata,
    yPixel: p.yaxis && p.y !== null && p.y !== undefined ? p.yaxis._offset + p.yaxis.l2p(p.yaxis.c2l(p.y)) : Infinity,
  }));
  return { pointerY, points };
}

/** The band edge a plotly_click on chart `div` was nearest to (see edgeAt), or null. */
export function clickedEdge(event, div) {
  const { pointerY, points } = clickedPoints(event, div);
  return edgeAt(points, pointerY);
}
