// The job's goodput on the Jobs tab, from /api/job's `goodput`: the share of the ranks'
// time that produced new steps, the wall time, the time lost to restarts and the steps
// done twice, then one compact row per rank worth a look. With thousands of ranks only
// the restarted ones and those of the lowest goodput are listed (ROWS at most); a rank
// is found by typing it. Never one DOM row per rank.

import { h } from './dom.js';
import { plural } from './format.js';

export const ROWS = 25;

/** Seconds as "1h02m", "4m12s", "38s", "0.4s" (as `visualdl --inspect` says them). */
export function fmtSeconds(seconds) {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '–';
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** A ratio as "93.1%", null as a dash. */
export function fmtRatio(ratio) {
  return ratio === null || ratio === undefined ? '–' : `${(100 * ratio).toFixed(1)}%`;
}

/** The job's line: "goodput 93.1% · wall 1h02m · lost 4m12s to 2 restarts · 310 steps done twice". */
export function summaryText(g) {
  const parts = [`goodput ${fmtRatio(g.goodput)}`, `wall ${fmtSeconds(g.wall_seconds)}`];
  if (g.restarts) {
    parts.push(`lost ${fmtSeconds(g.lost_seconds)} to ${plural(g.restarts, 'restart')}`,
      `${plural(g.steps_done_twice, 'step')} done twice`);
    if (g.recovering) parts.push(`${plural(g.recovering, 'rank')} still recovering`);
  } else {
    parts.push('no restart');
  }
  const roles = Object.entries(g.roles);
  if (roles.length > 1) parts.push(roles.map(([role, r]) => `${role} ${fmtRatio(r.goodput)}`).join(', '));
  return parts.join(' · ');
}

/**
 * The rows to list: with a `query` ("7", or "trainer 7"), the ranks that match it;
 * else the restarted ranks (most time lost first), then the lowest goodput. At most `limit`.
 * Each row: {role, rank, i} (i: the rank's index in its role's columns).
 */
export function pickRows(g, { query = '', limit = ROWS } = {}) {
  const all = [];
  for (const [role, cols] of Object.entries(g.ranks)) {
    for (let i = 0; i < cols.rank.length; i++) all.push({ role, rank: cols.rank[i], i });
  }
  const q = query.trim().toLowerCase();
  if (q) {
    const [a, b] = q.split(/\s+/);
    const match = b === undefined
      ? (r) => String(r.rank) === a || r.role.toLowerCase() === a
      : (r) => r.role.toLowerCase() === a && String(r.rank) === b;
    return all.filter(match).slice(0, limit);
  }
  const col = (r, name) => g.ranks[r.role][name][r.i];
  const restarted = all.filter((r) => col(r, 'restarts') > 0)
    .sort((x, y) => col(y, 'lost_seconds') - col(x, 'lost_seconds'));
  const rest = all.filter((r) => !(col(r, 'restarts') > 0) && col(r, 'goodput') !== null)
    .sort((x, y) => col(x, 'goodput') - col(y, 'goodput'));
  return [...restarted, ...rest].slice(0, limit);
}

export class GoodputView {
  constructor(container) {
    this.summary = h('span', { class: 'goodput-summary' });
    this.filter = h('input', {
      type: 'search', placeholder: 'rank, or role and rank', 'aria-label': 'Find a rank', class: 'goodput-find',
      oninput: () => this.rows(),
    });
    this.note = h('span', { class: 'muted' });
    this.body = h('tbody', { id: 'job-goodput-rows' });
    const head = ['role', 'rank', 'goodput', 'wall', 'productive', 'lost', 'restarts', 'steps twice', '']
      .map((name) => h('th', {}, name));
    this.root = h('div', { class: 'card wide job-goodput', id: 'job-goodput' },
      h('div', { class: 'goodput-head' }, h('strong', {}, 'Goodput'), ' ', this.summary),
      h('div', { class: 'goodput-tools' }, this.filter, ' ', this.note),
      h('table', { class: 'job-writers' }, h('thead', {}, h('tr', {}, head)), this.body));
    container.prepend(this.root);
    this.g = null;
  }

  draw(job) {
    this.g = job.goodput ?? null;
    this.root.hidden = !this.g;
    if (!this.g) return;
    this.summary.textContent = summaryText(this.g);
    this.rows();
  }

  rows() {
    const g = this.g;
    if (!g) return;
    const total = Object.values(g.ranks).reduce((n, cols) => n + cols.rank.length, 0);
    const picked = pickRows(g, { query: this.filter.value });
    this.note.textContent = this.filter.value.trim()
      ? `${plural(picked.length, 'rank')} found`
      : `${picked.length} of ${plural(total, 'rank')}: restarted first, then the lowest goodput`;
    this.body.replaceChildren(...picked.map(({ role, rank, i }) => {
      const c = g.ranks[role];
      return h('tr', { class: c.recovering[i] ? 'goodput-recovering' : '' },
        h('td', {}, role), h('td', {}, String(rank)), h('td', {}, fmtRatio(c.goodput[i])),
        h('td', {}, fmtSeconds(c.wall_seconds[i])), h('td', {}, fmtSeconds(c.productive_seconds[i])),
        h('td', {}, c.restarts[i] ? fmtSeconds(c.lost_seconds[i]) : '–'), h('td', {}, String(c.restarts[i])),
        h('td', {}, c.steps_done_twice[i] ? c.steps_done_twice[i].toLocaleString() : '–'),
        h('td', { class: 'muted' }, c.recovering[i] ? 'recovering: not yet past its old highest step' : ''));
    }));
  }
}
