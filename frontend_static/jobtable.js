// The Jobs tab's table of writers (one row per log file, /api/job's `writers`), virtualised:
// a scrollbox of fixed-height rows where only the rows in view (and a few beyond) are in the
// DOM, between two spacer rows that give the scrollbar its full length. 10,000 log files
// are a few dozen rows at any time. Sorted by a click on a column's header (the files that
// did not close cleanly first, by default), filtered by state and by a search for a rank,
// a host or a file.

import { h, onScrollFrame } from './dom.js';
import { fmtWall } from './format.js';
import { STATE_ORDER, UNCLEAN, attemptText } from './jobchart.js';

export const ROW_PX = 24; // every row's height (style.css: .job-writers tbody tr)
const VIEW_ROWS = 16; // rows in view before the box scrolls
const OVERSCAN = 8; // rows drawn beyond each edge of the view


const stateRank = (state) => {
  const i = STATE_ORDER.indexOf(state);
  return i < 0 ? STATE_ORDER.length : i;
};
const cmpText = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const cmpNumber = (a, b) => (a ?? -Infinity) - (b ?? -Infinity) || 0;

/** The columns: header, the sort's comparison, the cell's text (and its title). */
export const COLUMNS = [
  { key: 'role', label: 'Role', cmp: (a, b) => cmpText(a.role, b.role), text: (w) => w.role },
  { key: 'rank', label: 'Rank', cmp: (a, b) => a.rank - b.rank, text: (w) => String(w.rank) },
  { key: 'attempt', label: 'Attempt', cmp: (a, b) => a.attempt - b.attempt, text: (w) => attemptText(w.attempt),
    title: (w) => (w.attempt < 0 ? 'the launcher gave no attempt number' : '') },
  { key: 'state', label: 'State', cmp: (a, b) => stateRank(a.state) - stateRank(b.state), text: (w) => w.state },
  { key: 'steps', label: 'Steps', cmp: (a, b) => cmpNumber(a.last_step, b.last_step),
    text: (w) => `${w.first_step ?? '–'}–${w.last_step ?? '–'}` },
  { key: 'points', label: 'Points', cmp: (a, b) => a.points - b.points, text: (w) => String(w.points) },
  { key: 'start_time', label: 'Started', cmp: (a, b) => cmpNumber(a.start_time, b.start_time), text: (w) => fmtWall(w.start_time) },
  { key: 'end_time', label: 'Ended / last seen', cmp: (a, b) => cmpNumber(a.end_time, b.end_time), text: (w) => fmtWall(w.end_time) },
  { key: 'host', label: 'Host, pid', cmp: (a, b) => cmpText(a.host, b.host) || a.pid - b.pid, text: (w) => `${w.host} ${w.pid}` },
  { key: 'file', label: 'File', cmp: (a, b) => cmpText(a.file, b.file), text: (w) => w.file, title: (w) => w.file, muted: true },
];
const BY_KEY = Object.fromEntries(COLUMNS.map((c) => [c.key, c]));
// Ties are broken by place and attempt, so that a sort is the same from one refresh to the next.
const TIE = (a, b) => cmpText(a.role, b.role) || a.rank - b.rank || a.attempt - b.attempt || cmpText(a.file, b.file);

/** How many files of each state, in STATE_ORDER (other states after). */
export function stateCounts(writers) {
  const counts = new Map();
  for (const w of writers) counts.set(w.state, (counts.get(w.state) ?? 0) + 1);
  return [...counts].sort((a, b) => stateRank(a[0]) - stateRank(b[0]) || cmpText(a[0], b[0]));
}

/**
 * Does writer `w` match the search `query`? Every word must: a number is the rank (or the pid),
 * other words a part of the role, the host, the file or the state (case-insensitive).
 */
export function matchesQuery(w, words) {
  for (const word of words) {
    if (/^\d+$/.test(word)) {
      if (String(w.rank) !== word && String(w.pid) !== word) return false;
    } else if (![w.role, w.host, w.file, w.state].some((s) => String(s).toLowerCase().includes(word))) {
      return false;
    }
  }
  return true;
}

/**
 * The writers to list, in order: those of `state` ('all', 'unclean' or one state) matching
 * `query`, sorted by the column `sort` (descending if `desc`), ties by role, rank, attempt.
 */
export function orderWriters(writers, { sort = 'state', desc = false, state = 'all', query = '' } = {}) {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const keep = state === 'all' ? () => true : state === 'unclean' ? (w) => UNCLEAN.has(w.state) : (w) => w.state === state;
  const rows = writers.filter((w) => keep(w) && (!words.length || matchesQuery(w, words)));
  const cmp = (BY_KEY[sort] ?? BY_KEY.state).cmp;
  const sign = desc ? -1 : 1;
  return rows.sort((a, b) => sign * cmp(a, b) || TIE(a, b));
}

/** The rows [first, end) to draw for a box scrolled to `scrollTop`, `height` px tall. */
export function rowWindow(scrollTop, height, count, rowPx = ROW_PX, overscan = OVERSCAN) {
  const first = Math.max(0, Math.floor(scrollTop / rowPx) - overscan);
  const end = Math.min(count, Math.ceil((scrollTop + height) / rowPx) + overscan);
  return { first: Math.min(first, end), end };
}

export class JobTable {
  /** Builds the table inside `card` (the Jobs tab's writers card). */
  constructor(card) {
    this.sort = 'state';
    this.desc = false;
    this.writers = [];
    this.rows = [];
    this.drawn = null; // [first, end, rows] of the rows in the DOM
    this.state = h('select', { class: 'job-writers-state', 'aria-label': 'Show the files of a state' });
    this.query = h('input', { type: 'search', class: 'job-writers-find', placeholder: 'Find: 7, trainer 7, a host, a file',
      'aria-label': 'Find log files by rank, role, host or file', autocomplete: 'off', spellcheck: false });
    this.count = h('span', { class: 'muted job-writers-count', 'aria-live': 'polite' });
    this.heads = COLUMNS.map((c) => h('th', { scope: 'col', dataset: { key: c.key } },
      h('button', { type: 'button', class: 'job-writers-sort', onclick: () => this.sortBy(c.key) }, c.label)));
    this.body = h('tbody', { id: 'job-writers' });
    this.box = h('div', { class: 'job-writers-scroll', tabindex: 0, 'aria-label': 'log files of the job' },
      h('table', { class: 'job-writers' }, h('colgroup', {}, COLUMNS.map((c) => h('col', { class: `col-${c.key}` }))),
        h('thead', {}, h('tr', {}, this.heads)), this.body));
    card.replaceChildren(
      h('div', { class: 'job-writers-tools' }, h('strong', {}, 'Log files'), this.state, this.query, this.count),
      this.box);
    this.state.addEventListener('change', () => this.reorder(true));
    this.query.addEventListener('input', () => this.reorder(true));
    onScrollFrame(this.box, () => this.render());
  }

  /** Show `writers` (/api/job's list): the sort, filter and scroll position are kept. */
  draw(writers) {
    this.writers = writers;
    const chosen = this.state.value || 'all';
    const counts = stateCounts(writers);
    const unclean = writers.filter((w) => UNCLEAN.has(w.state)).length;
    const options = [
      ['all', `all states (${writers.length.toLocaleString()})`],
      ...(unclean && unclean < writers.length ? [['unclean', `not closed cleanly (${unclean.toLocaleString()})`]] : []),
      ...counts.map(([state, n]) => [state, `${state} (${n.toLocaleString()})`]),
    ];
    // A live job is drawn again every few seconds: the options are replaced only when they change.
    if (options.map((o) => o.join(' ')).join('\n') !== [...this.state.options].map((o) => `${o.value} ${o.text}`).join('\n')) {
      this.state.replaceChildren(...options.map(([value, label]) => h('option', { value }, label)));
      this.state.value = options.some(([value]) => value === chosen) ? chosen : 'all';
    }
    this.reorder(false);
  }

  sortBy(key) {
    this.desc = this.sort === key ? !this.desc : false;
    this.sort = key;
    this.reorder(true);
  }

  reorder(toTop) {
    this.rows = orderWriters(this.writers, { sort: this.sort, desc: this.desc, state: this.state.value, query: this.query.value });
    for (const th of this.heads) {
      const on = th.dataset.key === this.sort;
      th.setAttribute('aria-sort', on ? (this.desc ? 'descending' : 'ascending') : 'none');
    }
    const total = this.writers.length;
    this.count.textContent = this.rows.length === total ? `${total.toLocaleString()} log file${total === 1 ? '' : 's'}`
      : `${this.rows.length.toLocaleString()} of ${total.toLocaleString()} log files`;
    // The box shows up to VIEW_ROWS rows, and is as short as its rows when there are fewer.
    this.box.style.maxHeight = `${(VIEW_ROWS + 1) * ROW_PX + 2}px`;
    if (toTop) this.box.scrollTop = 0;
    this.drawn = null;
    this.render();
  }

  /** Put the rows in view (and OVERSCAN beyond) between two spacers, if they changed. */
  render() {
    // The box's own height while it has few rows drawn (the first draw) is not its height to come.
    const view = Math.max(this.box.clientHeight, (VIEW_ROWS + 1) * ROW_PX);
    const { first, end } = rowWindow(this.box.scrollTop, view, this.rows.length);
    if (this.drawn && this.drawn[0] === first && this.drawn[1] === end && this.drawn[2] === this.rows) return;
    this.drawn = [first, end, this.rows];
    const spacer = (n) => (n > 0 ? h('tr', { class: 'job-writers-pad', 'aria-hidden': 'true' },
      h('td', { colSpan: COLUMNS.length, style: { height: `${n * ROW_PX}px` } })) : null);
    const rows = [];
    for (let i = first; i < end; i++) {
      const w = this.rows[i];
      rows.push(h('tr', { class: `state-${w.state}`, 'aria-rowindex': i + 2 },
        COLUMNS.map((c) => h('td', { title: c.title?.(w) || undefined, class: c.muted ? 'muted' : undefined }, c.text(w)))));
    }
    this.body.replaceChildren(...[spacer(first), ...rows, spacer(this.rows.length - end)].filter(Boolean));
    this.box.querySelector('table').setAttribute('aria-rowcount', String(this.rows.length + 1));
  }
}
