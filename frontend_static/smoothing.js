/**
 * TensorBoard's smoothing: a debiased exponential moving average.
 *
 * It runs over the points shown -- the series as the chart holds it (downsampled by
 * the server, or the zoomed range at full resolution) -- not over the full log, so
 * the same weight smooths a zoomed-in view less, exactly as in TensorBoard.
 *
 *   last = last * w + (1 - w) * v;   smoothed = last / (1 - w^k)
 *
 * where k counts the finite values seen so far (the debiasing keeps the start of the
 * curve from being pulled towards 0). Non-finite values (null, NaN, +-Inf) are skipped:
 * they do not move the average and get null, a gap in the smoothed line.
 *
 * @param {Array<number|null>} values  the y values in order
 * @param {number} weight  0 (no smoothing) .. 0.999
 * @returns {Array<number|null>}
 */
export function smooth(values, weight) {
  const w = Math.min(Math.max(Number(weight) || 0, 0), 0.999);
  const out = new Array(values.length);
  const finite = values.filter((v) => v !== null && Number.isFinite(v));
  const constant = finite.length > 0 && finite.every((v) => v === finite[0]);
  let last = 0;
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || !Number.isFinite(v)) {
      out[i] = null;
      continue;
    }
    if (w === 0 || constant) {
      out[i] = v; // nothing to smooth; avoids rounding noise on a flat line
      continue;
    }
    last = last * w + (1 - w) * v;
    k += 1;
    out[i] = last / (1 - Math.pow(w, k));
  }
  return out;
}
