// Points a later writer replaced, drawn apart: a run written twice into one directory (a
// script run again, pool workers logging the same steps) or a restarted rank keeps, at each
// step, the latest writer's point; the earlier writers' points at those steps are not in
// its line. With "Replaced points" ticked, a chart also asks for them (api/scalars
// points=replaced) for its runs that were written more than once, and draws them as
// markers of the run's colour, never as part of its line.

import { fetchJSON } from './api.js';
import { attemptsOf } from './sidebar.js';

/** The name of a run's replaced points in the chart (legend, trace meta.run). */
export const replacedName = (run) => `${run} · replaced`;

/** Of `runs` (names), those written more than once (their writers, as api/runs lists them). */
export function writtenAgain(runs, runByName) {
  return runs.filter((name) => {
    const run = runByName.get(name);
    return run !== undefined && attemptsOf(run.writers) > 1;
  });
}

export class ReplacedPoints {
  /** tag: the chart's; redraw(): called when the points arrive or go. */
  constructor(tag, redraw) {
    this.tag = tag;
    this.redraw = redraw;
    this.lines = [];
    this.asked = null; // the request's key: runs and range
  }

  /** Ask for the replaced points of `runs` in the step `range` (or drop them when `enabled` is off). */
  load(runs, range, enabled) {
    if (!enabled || !runs.length) {
      this.asked = null;
      if (this.lines.length) {
        this.lines = [];
        this.redraw();
      }
      return;
    }
    const key = JSON.stringify([runs, range]);
    this.asked = key;
    fetchJSON('scalars', { tag: this.tag, run: runs, points: 'replaced', x_min: range?.[0], x_max: range?.[1] }).then(({ body }) => {
      if (this.asked !== key) return; // asked again, or turned off, meanwhile
      this.lines = body.runs.filter((s) => s.steps.length);
      this.redraw();
    }, (error) => console.warn(`replaced points of ${this.tag}: ${error.message}`));
  }

  /** The replaced points as series of the figure: markers in their run's colour. */
  series() {
    return this.lines.map((s) => ({ ...s, run: replacedName(s.run), colorKey: s.run, replaced: true }));
  }
}
