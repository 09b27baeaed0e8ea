// The view in the URL: `#tab?runs=REGEX&tags=REGEX&group=lr&smoothing=0.8&x=relative&logy=1`
// the charts' zoomed x ranges (`zoom`), and the Runs tab's `where`, `sort`, chosen columns
// (`cols`) and metrics. A copied URL reopens the same view: what it names
// wins over the settings saved in this browser; what it leaves out keeps them.

/** The bands a job's or a group's line may have (scalarfigure.js). */
export const BANDS = ['quantiles', 'minmax', 'p5-p95', 'p25-p75', 'sd', 'none'];

/** Settings of the Scalars toolbar by their URL names: [key in ctx.scalar, parse, write]. */
const SCALAR = {
  smoothing: ['smoothing', (v) => Math.min(Math.max(Number(v) || 0, 0), 0.999), String],
  x: ['xAxis', (v) => (['step', 'relative', 'wall'].includes(v) ? v : undefined), String],
  logy: ['logY', (v) => v === '1', (v) => (v ? '1' : undefined)],
  outliers: ['ignoreOutliers', (v) => v === '1', (v) => (v ? '1' : undefined)],
  ranks: ['perRank', (v) => v === '1', (v) => (v ? '1' : undefined)],
  replaced: ['replaced', (v) => v === '1', (v) => (v ? '1' : undefined)],
  smoothing_mode: ['smoothingMode', (v) => (v === 'adaptive' || v === 'tensorboard' ? v : undefined), (v) => (v === 'adaptive' ? v : undefined)],
  group: ['groupBy', (v) => v || undefined, (v) => (v && v !== 'auto' ? v : undefined)],
  center: ['center', (v) => (v === 'median' ? v : v === 'mean' ? v : undefined), (v) => (v === 'median' ? v : undefined)],
  band: ['band', (v) => (BANDS.includes(v) ? v : undefined), (v) => (v && v !== 'quantiles' ? v : undefined)],
};

/** A list the URL keeps as JSON (the Runs tab's columns and metrics); [] when it is not one. */
export function listParam(text) {
  try {
    const list = JSON.parse(text ?? '[]');
    return Array.isArray(list) ? list.filter((v) => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** Charts zoomed at most that the URL keeps (the latest ones). */
export const MAX_ZOOMS = 20;

/**
 * The charts' zoomed x ranges a URL keeps: tag -> [from, to] in the x axis' units (steps,
 * relative time, or wall-clock dates as plotly writes them); {} when none or not valid.
 */
export function zoomParam(text) {
  let parsed;
  try {
    parsed = JSON.parse(text ?? '{}');
  } catch {
    return new Map();
  }
  const out = new Map();
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return out;
  const bound = (v) => (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v.length <= 40);
  for (const [tag, range] of Object.entries(parsed)) {
    if (Array.isArray(range) && range.length === 2 && range.every(bound)) out.set(tag, range);
    if (out.size >= MAX_ZOOMS) break;
  }
  return out;
}

/** The tab and the parameters of a location hash ("#scalars?runs=a" -> ["scalars", {runs: "a"}]). */
export function parseView(hash) {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  const cut = text.indexOf('?');
  const tab = cut < 0 ? text : text.slice(0, cut);
  const params = Object.fromEntries(new URLSearchParams(cut < 0 ? '' : text.slice(cut + 1)));
  return { tab: decodeURIComponent(tab), params };
}

/** The Scalars settings a URL's parameters name, parsed ({} when none). */
export function scalarSettingsOf(params) {
  const out = {};
  for (const [name, [key, parse]] of Object.entries(SCALAR)) {
    if (!(name in params)) continue;
    const value = parse(params[name]);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * The hash of a view: the tab, then the filters and settings that differ from the defaults
 * (`view`: {tab, runs, tags, scalar, where, sort}), in a fixed order so equal views have
 * equal URLs.
 */
export function viewHash({ tab, runs = '', tags = '', scalar = {}, where = '', sort = '', cols = [], metrics = [], zoom = null }) {
  const params = new URLSearchParams();
  if (runs) params.set('runs', runs);
  if (tags) params.set('tags', tags);
  for (const [name, [key, , write]] of Object.entries(SCALAR)) {
    const value = scalar[key];
    if (value === undefined || (name === 'smoothing' && value === 0.6) || (name === 'x' && value === 'step')) continue;
    const text = write(value);
    if (text !== undefined) params.set(name, text);
  }
  if (where) params.set('where', where);
  if (sort) params.set('sort', sort);
  if (cols.length) params.set('cols', JSON.stringify(cols));
  if (metrics.length) params.set('metrics', JSON.stringify(metrics));
  if (zoom?.size) params.set('zoom', JSON.stringify(Object.fromEntries(zoom)));
  const query = params.toString();
  return `#${tab}${query ? `?${query}` : ''}`;
}
