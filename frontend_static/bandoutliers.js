// Who holds a job's extremes and quantile edges, from the `extremes` (min, max, p5 ... p95)
// and the `*_rank` of a role of /api/scalars: the range of steps a point's rank holds, and
// the ranks most often at the minimum or maximum. Pure functions: the chart's hover, its
// annotation and the click on a band's edge use them.

/** The row [first, last, rank, held, points] of `ranges` (by first step, ascending) holding `step`; null if none. */
export function rangeAt(ranges, step) {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last] = ranges[mid];
    if (step < first) hi = mid - 1;
    else if (step > last) lo = mid + 1;
    else return ranges[mid];
  }
  return null;
}

/**
 * "rank 7 over steps 100–240" (or "most often rank 7: 62 of 80 steps 100–240"), for one
 * point's hover; `who(rank)` names the holder (a group's member run instead of a rank).
 */
export function holderText(ranges, step, who = (rank) => `rank ${rank}`) {
  const row = ranges ? rangeAt(ranges, step) : null;
  if (!row) return '';
  const [first, last, rank, held, points] = row;
  const span = first === last ? `step ${first}` : `steps ${first}–${last}`;
  return held === points ? `${who(rank)} over ${span}` : `most often ${who(rank)}: ${held} of ${points} ${span}`;
}

/** "max: trainer 4 (50%), 1 (35%) · min: trainer 2 (88%)": the most frequent holders of a role's extremes. */
export function holdersSummary(extremes, role, steps) {
  if (!extremes || !steps) return '';
  const part = (name) => {
    const top = extremes[name]?.top ?? [];
    if (!top.length) return '';
    return `${name}: ${role} ${top.slice(0, 3).map(([rank, held]) => `${rank} (${Math.round((100 * held) / steps)}%)`).join(', ')}`;
  };
  return ['max', 'min'].map(part).filter(Boolean).join(' · ');
}

/** The rank at each quantile edge of a job role's answer ({p5: [...], ...}), null from a server that sends none. */
export function edgeRanksOf(role) {
  if (!role.p95_rank) return null;
  return Object.fromEntries(['p5', 'p25', 'median', 'p75', 'p95'].map((name) => [name, role[`${name}_rank`]]));
}

/** Steps the extremes were counted over (the holders' counts add up to at most this). */
export function countedSteps(extremes) {
  const ranges = extremes?.max?.ranges ?? [];
  return ranges.reduce((total, row) => total + row[4], 0);
}
