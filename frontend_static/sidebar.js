// The sidebar: run list (checkbox and colour per run, in natural order: seed2 before
// seed10), run and tag regex filters, and the status line from /api/health with a popup
// listing problems in the log files. The list is virtualised (jobtable.js's window): 30,000
// runs are the few dozen rows in view between two spacers.

import { getJSON } from './api.js';
import { compileFilter, h, onScrollFrame, runOrder } from './dom.js';
import { fmtBytes, fmtClock, fmtWall, plural } from './format.js';
import { rowWindow } from './jobtable.js';

export const RUN_ROW_PX = 24; // style.css: .run-list > li

/**
 * How many times the busiest place of a run was written (visualdl/_index/runtable.py's
 * attempts): a rank's files, or the files of its unranked writers (a script run twice).
 */
export function attemptsOf(writers) {
  const perPlace = new Map();
  for (const w of writers) {
    const place = w.rank >= 0 ? `${w.role}\u0000${w.rank}` : '';
    perPlace.set(place, (perPlace.get(place) ?? 0) + 1);
  }
  return Math.max(1, ...perPlace.values());
}
export class Sidebar {
  /** ctx: the app's state and callbacks (selectionChanged, filtersChanged, colorOf). */
  constructor(ctx) {
    this.ctx = ctx;
    this.list = document.getElementById('run-list');
    this.count = document.getElementById('run-count');
    this.status = document.getElementById('status-text');
    this.problemsButton = document.getElementById('problems-button');
    this.dialog = document.getElementById('problems-dialog');
    this.listedRuns = null;
    this.replacedCounts = new Map(); // run -> [its writers' key, api/runs/replaced's answer or its promise]
    this.visible = [];
    this.drawn = null;
    onScrollFrame(this.list, () => this.drawWindow());
    this.bindFilter('run-filter', 'runFilter');
    this.bindFilter('tag-filter', 'tagFilter');
    document.getElementById('runs-all').addEventListener('click', () => this.setAll(true));
    document.getElementById('runs-none').addEventListener('click', () => this.setAll(false));
    this.problemsButton.addEventListener('click', () => this.dialog.showModal());
  }

  bindFilter(id, key) {
    const input = document.getElementById(id);
    const message = document.getElementById(`${id}-error`);
    let timer = 0;
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const filter = compileFilter(input.value);
        message.textContent = filter.error || '';
        message.hidden = !filter.error;
        input.setAttribute('aria-invalid', String(Boolean(filter.error)));
        if (filter.error) return; // keep the last valid filter
        this.ctx.state[key] = filter;
        if (key === 'runFilter') this.renderRuns(true);
        this.ctx.filtersChanged();
      }, 150);
    });
  }

  /** Show the runs matching the run filter, in natural order; rebuilds only when the list changes. */
  renderRuns(force = false) {
    const { state } = this.ctx;
    const visible = state.runs.filter((r) => this.ctx.runMatches(r.name)).sort((a, b) => runOrder(a.name, b.name));
    const key = visible.map((r) => r.name).join('\u0000');
    if (force || key !== this.listedRuns) {
      this.listedRuns = key;
      this.visible = visible;
      this.drawn = null;
      if (!visible.length) {
        const text = state.runs.length ? 'No runs match the filter.' : 'No runs yet.';
        this.list.replaceChildren(h('li', { class: 'muted' }, text));
      } else {
        this.drawWindow();
      }
    } else {
      this.drawn = null; // the same runs, maybe ticked differently
      this.drawWindow();
    }
    const selected = this.ctx.selectedRuns().size;
    this.count.textContent = `${selected} of ${state.runs.length} selected`;
  }

  /** The rows in view (and a few beyond) between two spacers, if they changed. */
  drawWindow() {
    if (!this.visible.length) return;
    const height = Math.max(this.list.clientHeight, 20 * RUN_ROW_PX);
    const { first, end } = rowWindow(this.list.scrollTop, height, this.visible.length, RUN_ROW_PX);
    if (this.drawn && this.drawn[0] === first && this.drawn[1] === end) return;
    this.drawn = [first, end];
    const spacer = (n) => (n > 0 ? h('li', { class: 'run-pad', 'aria-hidden': 'true', style: { height: `${n * RUN_ROW_PX}px` } }) : null);
    const items = this.visible.slice(first, end).map((run) => this.runItem(run));
    this.list.replaceChildren(...[spacer(first), ...items, spacer(this.visible.length - end)].filter(Boolean));
  }

  runItem(run) {
    const box = h('input', { type: 'checkbox', checked: !this.ctx.state.deselected.has(run.name) });
    box.addEventListener('change', () => {
      if (box.checked) this.ctx.state.deselected.delete(run.name);
      else this.ctx.state.deselected.add(run.name);
      this.renderRuns();
      this.ctx.selectionChanged();
    });
    const writers = run.writers.length > 1 ? ` · ${run.writers.length} writers` : '';
    const times = attemptsOf(run.writers);
    const again = times > 1 ? `\nwritten ${times} times: a later writer replaces the points an earlier one logged at the same steps` : '';
    const title = `${run.name}\nstarted ${fmtWall(run.start_time)}${writers}${run.closed ? ' · finished' : ''}${again}`;
    const badge = times > 1 ? h('span', { class: 'run-attempts', 'aria-label': `${times} attempts` }, `×${times}`) : null;
    if (badge) this.sayReplaced(run, times, badge);
    return h('li', {}, h('label', { class: 'run', title, dataset: { run: run.name } }, box,
      h('span', { class: 'swatch', style: { background: this.ctx.colorOf(run.name) } }),
      h('span', { class: 'run-name' }, run.name), badge));
  }

  /**
   * A run written more than once says on its badge how many points later writers replaced
   * ("×2 · 6,000 replaced"), asked of the server for the runs in view only, once per change
   * of their writers.
   */
  sayReplaced(run, times, badge) {
    const key = run.writers.map((w) => `${w.path}:${w.closed}`).join('\u0000');
    let known = this.replacedCounts.get(run.name);
    if (!known || known[0] !== key) {
      known = [key, getJSON('runs/replaced', { run: run.name }).then((answer) => {
        known[1] = answer;
        return answer;
      }, () => null)];
      this.replacedCounts.set(run.name, known);
    }
    const show = (answer) => {
      if (!answer?.replaced) return;
      const n = answer.replaced.toLocaleString();
      badge.textContent = `×${times} · ${n} replaced`;
      badge.setAttribute('aria-label', `${times} attempts, ${n} points replaced`);
      badge.title = `written ${times} times: ${n} scalar points of earlier writers were replaced by later ones at the same steps (tick "Replaced points" in Scalars to draw them)`;
    };
    if (known[1] instanceof Promise) known[1].then(show);
    else show(known[1]);
  }

  setAll(on) {
    for (const run of this.ctx.state.runs) {
      if (!this.ctx.runMatches(run.name)) continue;
      if (on) this.ctx.state.deselected.delete(run.name);
      else this.ctx.state.deselected.add(run.name);
    }
    this.renderRuns(true);
    this.ctx.selectionChanged();
  }

  setHealth(health) {
    this.status.classList.remove('status-error');
    if (!health.loaded) {
      const files = health.files_total ? `: ${health.files_read} of ${health.files_total} files` : '';
      this.status.textContent = `Loading logs${files} (${fmtBytes(health.bytes_read)})…`;
    } else {
      const missing = health.logdirs.filter((d) => !d.exists).map((d) => d.path);
      const where = missing.length ? ` · logdir not found yet: ${missing.join(', ')}` : '';
      this.status.textContent = `${plural(this.ctx.state.runs.length, 'run')} · ${fmtBytes(health.bytes_read)} read · ` +
        `updated ${fmtClock(health.last_poll_time)}${where}`;
      const degraded = health.degraded || [];
      if (degraded.length) {
        this.status.classList.add('status-error');
        this.status.textContent += ` · ${degraded.join(' · ')}`;
      }
    }
    this.setProblems(health.problems || []);
  }

  setServerError(error) {
    this.status.classList.add('status-error');
    this.status.textContent = `Server unreachable or failing: ${error.message}`;
  }

  setProblems(problems) {
    const n = problems.length;
    this.problemsButton.hidden = n === 0;
    this.problemsButton.textContent = `${n} problem${n === 1 ? '' : 's'} in log files`;
    const rows = problems.map((p) => h('tr', {},
      h('td', { class: 'mono' }, p.logdir ? `${p.logdir}: ${p.file}` : p.file),
      h('td', { class: 'num' }, String(p.offset)),
      h('td', {}, p.message)));
    document.getElementById('problems-body').replaceChildren(...rows);
  }
}
