// The Runs tab: every run as a row of a table (its status, host, start, duration, writers,
// attempts, hparams, the last/min/max of the tags chosen, and where it came from: command,
// git state, Python, packages, shown when chosen in "Columns"), filtered by a query in the
// server's query language, sorted by a click on any column's header. The server filters and
// sorts (api/runs/table); the table fetches the pages in view only and keeps only those rows
// in the DOM (jobtable.js's window), so 30,000 runs scroll like 30.

import { getJSON } from './api.js';
import { h, onScrollFrame } from './dom.js';
import { fmtDuration, fmtValue, fmtWall } from './format.js';
import { RunDiff } from './rundiff.js';
import { rowWindow } from './jobtable.js';

export const ROW_PX = 24; // style.css: .runs-table tbody tr
const PAGE = 200; // rows per request
const VIEW_ROWS = 24;

/** The fixed columns: key (the field the server sorts by), header, cell text. */
export const FIXED = [
  { key: 'name', label: 'Run', text: (r) => r.name },
  { key: 'status', label: 'Status', text: (r) => r.status },
  { key: 'host', label: 'Host', text: (r) => r.host ?? '' },
  { key: 'start_time', label: 'Started', text: (r) => fmtWall(r.start_time) },
  { key: 'duration', label: 'Duration', text: (r) => fmtDuration(r.duration) },
  { key: 'writers', label: 'Writers', text: (r) => String(r.writers) },
  { key: 'attempts', label: 'Attempts', text: (r) => String(r.attempts) },
];

/** Where a run came from (its writers' provenance), and the other metadata columns hidden until chosen. */
export const EXTRA = {
  end_time: ['Ended', (v) => fmtWall(v)],
  command: ['Command', (v) => v ?? ''],
  git_commit: ['Commit', (v) => (v ? v.slice(0, 10) : '')],
  git_branch: ['Branch', (v) => v ?? ''],
  git_dirty: ['Dirty', (v) => (v === true ? 'dirty' : v === false ? 'clean' : '')],
  python: ['Python', (v) => v ?? ''],
  cwd: ['Directory', (v) => v ?? ''],
};

const value = (v) => (typeof v === 'number' ? fmtValue(v) : v === undefined || v === null ? '' : String(v));

/** The metadata column of a field the table answer lists (`fields`) that is not a fixed one. */
function extraColumn(key) {
  const [label, text] = EXTRA[key] ?? [key.startsWith('packages.') ? key.slice(9) : key, value];
  return { key, label, text: (r) => text(r[key]), extra: true, title: (r) => (r[key] === undefined || r[key] === null ? undefined : String(r[key])) };
}

/**
 * The columns for these hparams and metrics (each metric's last, min and max), with the
 * metadata `extras` (the answer's fields beyond the fixed ones: end time, command, git
 * state, Python, packages), then without those `hidden` (keys).
 */
export function columnsOf(hparams, metrics, { extras = [], hidden = new Set() } = {}) {
  const fixed = new Set(FIXED.map((c) => c.key));
  const all = [
    ...FIXED,
    ...extras.filter((key) => !fixed.has(key)).map(extraColumn),
    ...hparams.map((name) => ({ key: `hparams.${name}`, label: name, text: (r) => value(r.hparams[name]), hparam: true })),
    ...metrics.flatMap((tag) => ['last', 'min', 'max'].map((which) => ({
      key: `${tag}.${which}`, label: `${tag} ${which}`, text: (r) => value(r.metrics[tag]?.[which]), metric: true,
    }))),
  ];
  return all.filter((c) => c.key === 'name' || !hidden.has(c.key));
}

/** The columns hidden unless chosen: every extra (metadata beyond the fixed ones). */
export function defaultHidden(extras) {
  const fixed = new Set(FIXED.map((c) => c.key));
  return new Set(extras.filter((key) => !fixed.has(key)));
}

/**
 * The hidden columns after the user's choices (`choices`: key -> shown), over the defaults;
 * and the choices as the URL keeps them: ["+git_commit", "-host"], in a stable order.
 */
export function hiddenOf(extras, choices) {
  const hidden = defaultHidden(extras);
  for (const [key, shown] of choices) {
    if (shown) hidden.delete(key);
    else hidden.add(key);
  }
  return hidden;
}

export function choicesText(choices) {
  return [...choices].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, shown]) => `${shown ? '+' : '-'}${key}`);
}

export function choicesOf(list) {
  const out = new Map();
  for (const item of Array.isArray(list) ? list : []) {
    if (typeof item === 'string' && (item[0] === '+' || item[0] === '-') && item.length > 1) out.set(item.slice(1), item[0] === '+');
  }
  return out;
}

export class RunsTableView {
  constructor(panel, ctx) {
    this.ctx = ctx;
    const opened = ctx.openedView ?? {}; // the URL's query and sort ("-key": descending)
    this.sort = opened.sort ? opened.sort.replace(/^-/, '') : null; // null: natural order of names
    this.desc = Boolean(opened.sort?.startsWith('-'));
    this.where = opened.where ?? '';
    this.metrics = Array.isArray(opened.metrics) ? opened.metrics.filter((m) => typeof m === 'string') : [];
    this.hparams = [];
    this.extras = []; // the metadata fields beyond the fixed columns, as the server lists them
    this.choices = choicesOf(opened.cols); // key -> shown, what the user chose over the defaults
    this.pages = new Map(); // offset -> rows (or a promise while asked)
    this.matched = 0;
    this.generation = 0; // bumped whenever the query, sort or columns change: late pages are dropped
    this.query = h('input', { type: 'search', id: 'runs-query', class: 'runs-query', autocomplete: 'off', spellcheck: false,
      placeholder: 'Filter: lr < 0.3 and opt == "adam" and eval/loss.min < 0.1 and name ~ "seed1\\d+"',
      'aria-label': 'Filter runs by a query' });
    this.error = h('div', { class: 'filter-error', role: 'alert', hidden: true });
    this.metricPick = h('select', { class: 'runs-metrics', multiple: true, size: 3, 'aria-label': 'Metrics to show as columns' });
    this.columnList = h('div', { class: 'runs-column-list', role: 'group', 'aria-label': 'Columns shown' });
    this.columnPick = h('details', { class: 'runs-columns' }, h('summary', {}, 'Columns'), this.columnList);
    this.count = h('span', { class: 'muted runs-count', 'aria-live': 'polite' });
    this.head = h('tr');
    this.body = h('tbody');
    this.table = h('table', { class: 'runs-table' }, h('thead', {}, this.head), this.body);
    this.box = h('div', { class: 'runs-scroll', tabindex: 0, 'aria-label': 'runs' }, this.table);
    this.empty = panel.querySelector('.empty') ?? h('p', { class: 'empty', hidden: true });
    this.compared = new Map(); // run -> its row, in the order clicked (rundiff.js: at most 4)
    this.diff = new RunDiff();
    this.box.addEventListener('click', (event) => {
      const tr = event.target.closest('tr[data-run]');
      if (tr) this.toggleCompared(tr.dataset.run);
    });
    this.query.value = this.where;
    panel.replaceChildren(
      h('div', { class: 'toolbar' }, h('label', { class: 'runs-query-label' }, 'Runs where ', this.query),
        h('label', {}, 'Metrics ', this.metricPick), this.columnPick, this.count),
      h('p', { class: 'muted runs-hint' }, 'Click runs to compare them side by side (up to 4).'),
      this.error, this.empty, this.box, this.diff.el);
    let timer = 0;
    this.query.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.setWhere(this.query.value.trim()), 250);
    });
    this.metricPick.addEventListener('change', () => {
      this.metrics = [...this.metricPick.selectedOptions].map((o) => o.value);
      this.ctx.viewChanged?.();
      this.reset();
    });
    this.columnList.addEventListener('change', (event) => {
      const box = event.target.closest('input[type=checkbox]');
      if (!box) return;
      this.choices.set(box.value, box.checked);
      this.ctx.viewChanged?.();
      this.setColumns();
      this.drawn = null;
      this.render();
    });
    onScrollFrame(this.box, () => this.render());
  }

  /** Add a run to the comparison, or take it out; the oldest goes past four. */
  toggleCompared(name) {
    if (this.compared.delete(name)) {
      this.diff.show([...this.compared.values()]);
      this.drawn = null;
      this.render();
      return;
    }
    const row = [...this.pages.values()].filter(Array.isArray).flat().find((r) => r.name === name);
    if (!row) return;
    this.compared.set(name, row);
    while (this.compared.size > 4) this.compared.delete(this.compared.keys().next().value);
    this.diff.show([...this.compared.values()]);
    this.drawn = null;
    this.render();
  }

  setWhere(where) {
    if (where === this.where) return;
    this.where = where;
    this.ctx.viewChanged?.();
    this.reset();
  }

  sortBy(key) {
    this.desc = this.sort === key ? !this.desc : false;
    this.sort = key;
    this.ctx.viewChanged?.();
    this.reset();
  }

  /** Forget the pages fetched and start again at the top (the query, sort or columns changed). */
  reset() {
    this.generation += 1;
    this.pages.clear();
    this.box.scrollTop = 0;
    this.load(0);
  }

  update() {
    const tags = Object.keys(this.ctx.state.tags.scalars ?? {}).sort();
    const key = tags.join('\u0000');
    if (key !== this.tagsKey) {
      this.tagsKey = key;
      const chosen = new Set(this.metrics);
      this.metricPick.replaceChildren(...tags.map((tag) => h('option', { value: tag, selected: chosen.has(tag) }, tag)));
    }
    if (!this.pages.size) this.load(0);
  }

  /** Live refresh: the pages in view again (statuses and metrics move while runs write). */
  refresh() {
    this.generation += 1;
    const { first } = rowWindow(this.box.scrollTop, this.viewHeight(), this.matched, ROW_PX, 0);
    this.pages.clear();
    return this.load(Math.floor(first / PAGE) * PAGE);
  }

  viewHeight() {
    return Math.max(this.box.clientHeight, VIEW_ROWS * ROW_PX);
  }

  /** Fetch the page at `offset` (once), then draw. */
  load(offset) {
    if (this.pages.has(offset)) return Promise.resolve();
    const generation = this.generation;
    const asked = getJSON('runs/table', {
      where: this.where || undefined, sort: this.sort ?? undefined, order: this.desc ? 'desc' : undefined,
      metric: this.metrics.length ? this.metrics : undefined, offset, limit: PAGE,
    }).then((body) => {
      if (generation !== this.generation) return;
      this.error.hidden = true;
      this.query.removeAttribute('aria-invalid');
      this.pages.set(offset, body.rows);
      this.matched = body.matched;
      this.count.textContent = body.matched === body.total ? `${body.total.toLocaleString()} runs`
        : `${body.matched.toLocaleString()} of ${body.total.toLocaleString()} runs`;
      const hparams = body.hparams;
      const extras = body.fields.filter((f) => f !== 'name' && !f.startsWith('hparams.'));
      const key = [hparams.join('\u0000'), extras.join('\u0000'), this.metrics.join('\u0000')].join('\u0001');
      if (key !== this.columnsFor) {
        this.hparams = hparams;
        this.extras = extras;
        this.columnsFor = key;
        this.setColumns();
      }
      this.drawn = null;
      this.render();
    }, (error) => {
      if (generation !== this.generation) return;
      this.pages.delete(offset);
      this.error.textContent = error.message;
      this.error.hidden = false;
      this.query.setAttribute('aria-invalid', 'true');
    });
    this.pages.set(offset, asked);
    return asked;
  }

  /** The URL's part of the table: the column choices and the metrics (viewurl.js). */
  viewState() {
    return { cols: choicesText(this.choices), metrics: this.metrics };
  }

  setColumns() {
    const hidden = hiddenOf(this.extras, this.choices);
    const all = columnsOf(this.hparams, this.metrics, { extras: this.extras });
    this.columnList.replaceChildren(...all.filter((c) => c.key !== 'name').map((c) => h('label', { title: c.key },
      h('input', { type: 'checkbox', value: c.key, checked: !hidden.has(c.key) }), ` ${c.label}`)));
    this.columns = all.filter((c) => c.key === 'name' || !hidden.has(c.key));
    this.head.replaceChildren(...this.columns.map((c) => h('th', {
      scope: 'col', dataset: { key: c.key },
      'aria-sort': this.sort === c.key ? (this.desc ? 'descending' : 'ascending') : 'none',
    }, h('button', { type: 'button', class: 'runs-sort', onclick: () => this.sortBy(c.key) }, c.label))));
  }

  /** The row of run `row` (null while its page loads) at position `i`. */
  rowElement(i, row) {
    if (!row) return h('tr', { class: 'runs-loading', 'aria-rowindex': i + 2 }, h('td', { colSpan: this.columns.length }, '…'));
    return h('tr', { class: `status-${row.status}${this.compared.has(row.name) ? ' compared' : ''}`, 'aria-rowindex': i + 2,
      'aria-selected': String(this.compared.has(row.name)), dataset: { run: row.name } },
    this.columns.map((c) => h('td', { class: c.metric || c.hparam ? 'num' : undefined,
      title: c.key === 'name' ? row.name : c.title?.(row) }, c.text(row))));
  }

  /**
   * The rows in view (fetching the pages they are on) between two spacers. Rows already in
   * the DOM stay there: scrolling adds the rows coming into view and removes those leaving
   * it, so a frame lays out a few rows, not the whole window again.
   */
  render() {
    if (!this.columns) return;
    this.box.style.maxHeight = `${(VIEW_ROWS + 1) * ROW_PX + 2}px`;
    const { first, end } = rowWindow(this.box.scrollTop, this.viewHeight(), this.matched, ROW_PX);
    for (let page = Math.floor(first / PAGE) * PAGE; page < end; page += PAGE) this.load(page);
    const key = `${first}:${end}:${this.generation}:${[...this.pages.values()].filter(Array.isArray).length}`;
    if (this.drawn === key) return;
    this.drawn = key;
    // Rows stay while they show the same row object (an unchanged page, a 304, gives the same).
    const layout = `${this.columns.map((c) => c.key).join('\u0000')}:${[...this.compared.keys()].join('\u0000')}`;
    if (this.layout !== layout || !this.pads) { // other columns, or another comparison: new rows
      this.layout = layout;
      this.rowEls = new Map(); // row index -> [its tr, what it shows]
      const pad = () => h('tr', { class: 'runs-pad', 'aria-hidden': 'true' }, h('td', { colSpan: this.columns.length }));
      this.pads = [pad(), pad()];
      this.body.replaceChildren(...this.pads);
    }
    const rowAt = (i) => {
      const page = this.pages.get(Math.floor(i / PAGE) * PAGE);
      return Array.isArray(page) ? page[i % PAGE] : null;
    };
    for (const [i, [el, row]] of this.rowEls) { // rows out of view, or whose page came since
      if (i < first || i >= end || row !== rowAt(i)) {
        el.remove();
        this.rowEls.delete(i);
      }
    }
    let before = this.pads[0];
    for (let i = first; i < end; i++) {
      let held = this.rowEls.get(i);
      if (!held) {
        const row = rowAt(i);
        held = [this.rowElement(i, row), row];
        this.rowEls.set(i, held);
        before.after(held[0]);
      }
      before = held[0];
    }
    const [top, bottom] = this.pads;
    top.firstChild.style.height = `${first * ROW_PX}px`;
    bottom.firstChild.style.height = `${(this.matched - end) * ROW_PX}px`;
    top.hidden = first === 0;
    bottom.hidden = end >= this.matched;
    this.table.setAttribute('aria-rowcount', String(this.matched + 1));
    this.empty.hidden = this.matched > 0 || !this.pages.size;
    this.empty.textContent = this.where ? 'No run matches the query.' : 'No runs yet.';
  }
}
