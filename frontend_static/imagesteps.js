// The steps of an image tag, or of an audio tag: several images (clips) may share a step (a
// batch logged at once, as tf.summary.image and tf.summary.audio with max_outputs > 1 write
// it). Pure, no DOM.

/**
 * The distinct steps of `steps` (ascending, a step's images one after another, as
 * /api/images lists them) and, for each, the position of its first image and how many it has.
 * @param {number[]} steps
 * @returns {{steps: number[], starts: number[], counts: number[]}}
 */
export function stepGroups(steps) {
  const out = { steps: [], starts: [], counts: [] };
  for (let i = 0; i < steps.length; i++) {
    const last = out.steps.length - 1;
    if (last >= 0 && out.steps[last] === steps[i]) out.counts[last] += 1;
    else {
      out.steps.push(steps[i]);
      out.starts.push(i);
      out.counts.push(1);
    }
  }
  return out;
}

/** Columns of the grid showing `count` images of one step side by side (at most 4 a row). */
export function gridColumns(count) {
  return Math.max(1, Math.min(count, 4));
}
