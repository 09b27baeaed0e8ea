// Two to four runs side by side (the Runs tab's "compare"): their hparams, metadata and chosen
// metrics, one row per field, only the fields that differ unless asked for all of them.

import { h } from './dom.js';
import { fmtDuration, fmtValue, fmtWall } from './format.js';

export const MAX_COMPARED = 4;

const META = [
  ['status', (r) => r.status],
  ['host', (r) => r.host ?? ''],
  ['started', (r) => fmtWall(r.start_time)],
  ['duration', (r) => fmtDuration(r.duration)],
  ['writers', (r) => String(r.writers)],
  ['attempts', (r) => String(r.attempts)],
  ['command', (r) => r.command ?? '–'],
  ['git commit', (r) => r.git_commit ?? '–'],
  ['git branch', (r) => r.git_branch ?? '–'],
  ['git dirty', (r) => (r.git_dirty === true ? 'dirty' : r.git_dirty === false ? 'clean' : '–')],
  ['python', (r) => r.python ?? '–'],
  ['directory', (r) => r.cwd ?? '–'],
];

const text = (v) => (v === undefined || v === null ? '–' : typeof v === 'number' ? fmtValue(v) : String(v));

/**
 * The rows of a comparison of `runs` (rows of api/runs/table): [{field, values, differ}], hparams
 * first (every hparam any of them has), then the metadata, then each metric's last, min and max;
 * `all`: the equal fields too.
 */
export function diffRows(runs, { all = false } = {}) {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.hparams)))].sort();
  const tags = [...new Set(runs.flatMap((r) => Object.keys(r.metrics ?? {})))].sort();
  const packages = [...new Set(runs.flatMap((r) => Object.keys(r).filter((k) => k.startsWith('packages.'))))].sort();
  const rows = [
    ...names.map((name) => ({ field: name, values: runs.map((r) => text(r.hparams[name])) })),
    ...META.map(([field, get]) => ({ field, values: runs.map(get) })),
    ...packages.map((key) => ({ field: key.slice(9), values: runs.map((r) => text(r[key])) })),
    ...tags.flatMap((tag) => ['last', 'min', 'max'].map((which) => ({
      field: `${tag} ${which}`, values: runs.map((r) => text(r.metrics?.[tag]?.[which])),
    }))),
  ];
  for (const row of rows) row.differ = new Set(row.values).size > 1;
  return all ? rows : rows.filter((row) => row.differ);
}

export class RunDiff {
  constructor() {
    this.runs = [];
    this.all = h('input', { type: 'checkbox', class: 'diff-all' });
    this.body = h('tbody');
    this.head = h('tr');
    this.note = h('span', { class: 'muted' });
    this.el = h('section', { class: 'card run-diff', hidden: true, 'aria-label': 'runs compared' },
      h('div', { class: 'run-diff-tools' }, h('strong', {}, 'Compared'), this.note,
        h('label', {}, this.all, ' equal fields too'),
        h('button', { type: 'button', onclick: () => this.show([]) }, 'Clear')),
      h('table', { class: 'run-diff-table' }, h('thead', {}, this.head), this.body));
    this.all.addEventListener('change', () => this.render());
  }

  /** Compare these rows of api/runs/table (none: hidden). */
  show(runs) {
    this.runs = runs.slice(-MAX_COMPARED);
    this.render();
  }

  render() {
    this.el.hidden = this.runs.length === 0;
    if (this.el.hidden) return;
    const rows = diffRows(this.runs, { all: this.all.checked });
    this.head.replaceChildren(h('th', { scope: 'col' }, 'Field'), ...this.runs.map((r) => h('th', { scope: 'col', title: r.name }, r.name)));
    this.body.replaceChildren(...rows.map((row) => h('tr', { class: row.differ ? 'differ' : undefined },
      h('th', { scope: 'row' }, row.field), ...row.values.map((v) => h('td', {}, v)))));
    const differing = diffRows(this.runs).length;
    this.note.textContent = this.runs.length < 2 ? 'click another run to compare'
      : `${differing} field${differing === 1 ? '' : 's'} differ`;
  }
}
