// A job chart's marks of the first rank to go wrong (the `wrong` of its /api/scalars entry):
// at the step of the tag's first non-finite value, and at the first step at which the ranks
// of a replicated tag disagree, a dashed vertical line and a marker naming the rank(s).
// Drawn on the chart's overlay axis (y2, 0 to 1), like the NaN marks.

import { escPlotly } from './format.js';

const KINDS = {
  nonfinite: { color: '#b3261e', symbol: 'x', y: 0.92, name: 'first non-finite value' },
  divergence: { color: '#6a1b9a', symbol: 'diamond', y: 0.84, name: 'ranks disagree' },
};

/** The x of `step` on a line (its nearest point at or before it; the first point if none). */
function xAt(s, step) {
  let lo = 0;
  let hi = s.steps.length - 1;
  if (hi < 0) return undefined;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (s.steps[mid] <= step) lo = mid;
    else hi = mid - 1;
  }
  return s.xs[lo];
}

/** The traces of the marks of the shown series (each with `wrong`: [{kind, step, ranks, text}]). */
export function wrongTraces(shown) {
  const out = [];
  for (const [kind, look] of Object.entries(KINDS)) {
    const marks = shown.flatMap((s) => (s.wrong ?? []).filter((m) => m.kind === kind).map((m) => ({ s, m, x: xAt(s, m.step) })))
      .filter((p) => p.x !== undefined);
    if (!marks.length) continue;
    out.push({
      type: 'scatter', mode: 'lines', yaxis: 'y2', hoverinfo: 'skip', showlegend: false,
      x: marks.flatMap((p) => [p.x, p.x, null]), y: marks.flatMap(() => [0, 1, null]),
      line: { color: look.color, width: 1, dash: 'dot' }, meta: { kind: `wrong-${kind}-line` },
    }, {
      type: 'scatter', mode: 'markers+text', yaxis: 'y2', cliponaxis: false, showlegend: false, name: look.name,
      x: marks.map((p) => p.x), y: marks.map(() => look.y),
      text: marks.map((p) => escPlotly(`${p.m.role || 'rank'} ${p.m.ranks.join(', ')}`)), textposition: 'middle right',
      textfont: { color: look.color, size: 10 },
      customdata: marks.map((p) => [p.m.step, escPlotly(p.m.text)]),
      marker: { symbol: look.symbol, size: 10, color: look.color },
      hovertemplate: '%{customdata[1]} · step %{customdata[0]}<extra></extra>',
      meta: { kind: `wrong-${kind}`, steps: marks.map((p) => p.m.step), ranks: marks.map((p) => p.m.ranks) },
    });
  }
  return out;
}
