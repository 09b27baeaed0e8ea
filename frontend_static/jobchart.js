// What the Jobs tab's parts share: plotly's config and base layout, the colours of the
// writers' states and of the roles, the order of the states, an attempt's text.

export const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['select2d', 'lasso2d'] };

export const STATE_COLORS = {
  closed: '#2e7d32', running: '#1565c0', silent: '#f9a825', killed: '#c62828', raised: '#ad1457', signalled: '#6a1b9a', crashed: '#4e342e',
};
export const STRAGGLER_COLOR = STATE_COLORS.killed;

const ROLE_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b'];
/** The colour of a role, by its index in the job's roles. */
export const roleColor = (roles, role) => ROLE_COLORS[Math.max(0, roles.indexOf(role)) % ROLE_COLORS.length];

export const BASE_LAYOUT = {
  height: 260,
  margin: { l: 64, r: 14, t: 30, b: 40 },
  font: { family: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif', size: 11, color: '#333' },
  paper_bgcolor: '#fff',
  plot_bgcolor: '#fff',
  legend: { orientation: 'h', y: 1.14, x: 0 },
};

/** States in the order of the default sort: the files that did not end cleanly first. */
export const STATE_ORDER = ['crashed', 'raised', 'signalled', 'killed', 'silent', 'running', 'closed'];
/** States that are not a clean end (a running file has not ended). */
export const UNCLEAN = new Set(['crashed', 'raised', 'signalled', 'killed', 'silent']);

/** An attempt number as people count them; -1 (the launcher gave none) as a dash. */
export const attemptText = (attempt) => (attempt < 0 ? '—' : String(attempt));
