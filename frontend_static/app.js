// Entry point: app state, tabs, the sidebar, and the live-refresh loop that polls
// /api/health, /api/runs, /api/tags and /api/kinds and re-fetches the visible cards when
// the server has read new bytes. The tabs are those /api/kinds lists that this page has a
// panel for, in the server's order, with its counts.

import { getJSON, loadDeclarations } from './api.js';
import { AudioCard } from './audio.js';
import { assignColors, colorOf } from './colors.js';
import { compileFilter, matches } from './dom.js';
import { CurvesView } from './curves.js';
import { GraphView } from './graph.js';
import { HistogramCard, MODES } from './histograms.js';
import { HParamsView } from './hparams.js';
import { ImageCard } from './images.js';
import { JobsView } from './jobs.js';
import { LayoutsView } from './layouts.js';
import { PerRunView } from './perrunview.js';
import { ProjectorView } from './projector.js';
import { RunsTableView } from './runstable.js';
import { loadPlotly, renderIdle } from './renderqueue.js';
import { ScalarsView } from './scalars.js';
import { Sidebar } from './sidebar.js';
import { bindSidebarWidth } from './sidebarwidth.js';
import { TextCard } from './text.js';
import { MAX_ZOOMS, listParam, parseView, scalarSettingsOf, viewHash, zoomParam } from './viewurl.js';

const SETTINGS_KEY = 'visualdl.settings.v1';
const PINS_KEY = 'visualdl.pins.v1'; // the scalar charts pinned to the top, kept in this browser
const FULL_REFRESH_TICKS = 15; // re-fetch now and then even when no new bytes were read
const CYCLE_TIMEOUT_MS = 30000;

const saved = loadSettings();
// The view a URL names (viewurl.js) wins over the settings saved in this browser.
const opened = parseView(location.hash);
const urlFilter = (name) => (compileFilter(opened.params[name] ?? '').error ? '' : opened.params[name] ?? '');
let runColors = new Map();
const built = { views: null }; // the views, once made (a view may change settings while being made)
const state = {
  runs: [], runByName: new Map(), tags: {}, kinds: [], deselected: new Set(), loaded: false, tab: 'scalars',
  missingLogdirs: [], // logdirs the server says do not exist (a mistyped path looks empty otherwise)
  runFilter: compileFilter(urlFilter('runs')), tagFilter: compileFilter(urlFilter('tags')),
};
document.getElementById('run-filter').value = urlFilter('runs');
document.getElementById('tag-filter').value = urlFilter('tags');

const ctx = {
  state,
  scalar: {
    smoothing: 0.6, xAxis: 'step', logY: false, ignoreOutliers: false, perRank: false, groupBy: 'auto',
    center: 'mean', band: 'quantiles', replaced: false, smoothingMode: 'tensorboard',
    ...saved.scalar, ...scalarSettingsOf(opened.params),
  },
  // The Runs tab's query and sort as the URL gave them (runstable.js reads them once).
  openedView: { where: opened.params.where ?? '', sort: opened.params.sort ?? '', cols: listParam(opened.params.cols),
    metrics: listParam(opened.params.metrics) },
  refresh: { enabled: true, seconds: 2, ...saved.refresh },
  histogramMode: Object.hasOwn(MODES, saved.histogramMode) ? saved.histogramMode : 'offset',
  serverMaxPoints: null, // the server's --max-points, from the first scalar response
  // A run's colour (sidebar, cards, charts): its home colour, or the next free one (colors.js).
  colorOf: (key) => runColors.get(key) ?? colorOf(key),
  runColor: (key) => runColors.get(key),
  runMatches: (name) => matches(state.runFilter, name),
  selectedRuns: () => new Set(state.runs.map((r) => r.name).filter((n) => !state.deselected.has(n) && ctx.runMatches(n))),
  runStart: (name) => state.runByName.get(name)?.start_time ?? undefined,
  emptyText(noun, tagCount) {
    if (!state.runs.length && state.missingLogdirs.length) {
      const paths = state.missingLogdirs.join(', ');
      return `No runs: ${state.missingLogdirs.length > 1 ? 'the logdirs' : 'the logdir'} ${paths} ${state.missingLogdirs.length > 1 ? 'do' : 'does'} not exist (is the path right?); waiting for ${state.missingLogdirs.length > 1 ? 'them' : 'it'} to appear…`;
    }
    if (!state.runs.length) return state.loaded ? 'No runs found in the logdir yet; waiting for data…' : 'Loading logs…';
    if (!ctx.selectedRuns().size) return 'No runs selected: tick runs in the sidebar, or change the run filter.';
    if (!tagCount) return `No ${noun} data in these runs yet; waiting for data…`;
    if (state.tagFilter.re) return `No ${noun} tags of the selected runs match the tag filter.`;
    return `No ${noun} data in the selected runs.`;
  },
  save() {
    const { scalar, refresh, histogramMode } = ctx;
    try {
      localStorage.setItem(SETTINGS_KEY, JSON.stringify({ scalar, refresh, histogramMode }));
    } catch {
      // storage may be disabled (private mode, sandboxed iframe): settings just do not persist
    }
    ctx.viewChanged();
  },
  /** The URL says the view: the tab, the filters, the Scalars settings, the Runs tab's query. */
  viewChanged() {
    const table = built.views?.runs;
    const hash = viewHash({
      tab: state.tab, runs: document.getElementById('run-filter').value, tags: document.getElementById('tag-filter').value,
      scalar: ctx.scalar, where: table?.where, sort: table?.sort ? `${table.desc ? '-' : ''}${table.sort}` : '',
      ...(table?.viewState?.() ?? {}), zoom: ctx.zooms,
    });
    if (hash !== location.hash) history.replaceState(null, '', hash);
  },
  /** Scalar tags whose chart is pinned to the top of the Scalars tab (a copy; the chart stays in its group). */
  pins: new Set(loadPins()),
  togglePin(tag) {
    if (!ctx.pins.delete(tag)) ctx.pins.add(tag);
    try {
      localStorage.setItem(PINS_KEY, JSON.stringify([...ctx.pins]));
    } catch {
      // storage disabled: the pins last as long as the page
    }
    scheduleUpdate();
  },
  /** Each chart's zoomed x range, by tag (in the URL; a chart opened by it starts zoomed). */
  zooms: zoomParam(opened.params.zoom),
  zoomChanged(tag, range) {
    ctx.zooms.delete(tag);
    if (range) ctx.zooms.set(tag, range);
    while (ctx.zooms.size > MAX_ZOOMS) ctx.zooms.delete(ctx.zooms.keys().next().value);
    ctx.viewChanged();
  },
  /** The Runs tab, filtered by `where` (a group's members, from its chart). */
  openRuns(where) {
    const table = built.views?.runs;
    if (!table) return;
    table.query.value = where;
    table.setWhere(where);
    showTab('runs');
  },
  selectionChanged: () => scheduleUpdate(),
  filtersChanged: () => {
    ctx.viewChanged();
    scheduleUpdate();
  },
};

function loadPins() {
  try {
    const pins = JSON.parse(localStorage.getItem(PINS_KEY) || '[]');
    return Array.isArray(pins) ? pins.filter((tag) => typeof tag === 'string') : [];
  } catch {
    return [];
  }
}

function loadSettings() {
  try {
    return JSON.parse(localStorage.getItem(SETTINGS_KEY) || '{}') || {};
  } catch {
    return {}; // unreadable settings: start from the defaults
  }
}

// One entry per kind this page draws, the unit the tabs and panels are built from: how
// its view is made, and for a panel index.html does not hold (one without controls of its
// own), what it contains: a note for when it is empty, and a grid of cards (`grid`). A
// kind /api/kinds lists without an entry gets no tab; a new kind costs its entry and card.
const PANELS = {
  scalars: { make: (el) => new ScalarsView(el, ctx) },
  runs: { make: (el) => new RunsTableView(el, ctx) },
  images: {
    grid: true,
    make: (el) => new PerRunView(el, ctx, { kind: 'images', noun: 'image', Card: ImageCard, rowPerTag: true }),
  },
  histograms: {
    make: (el) => new PerRunView(el, ctx, { kind: 'histograms', noun: 'histogram', Card: HistogramCard }),
  },
  text: { grid: true, make: (el) => new PerRunView(el, ctx, { kind: 'text', noun: 'text', Card: TextCard }) },
  jobs: { make: (el) => new JobsView(el, ctx) },
  graphs: { make: (el) => new GraphView(el, ctx) },
  audio: { grid: true, make: (el) => new PerRunView(el, ctx, { kind: 'audio', noun: 'audio', Card: AudioCard }) },
  pr_curves: { grid: true, make: (el) => new CurvesView(el, ctx, 'pr_curves') },
  roc_curves: { grid: true, make: (el) => new CurvesView(el, ctx, 'roc_curves') },
  hparams: { grid: false, make: (el) => new HParamsView(el, ctx) },
  embeddings: { grid: false, make: (el) => new ProjectorView(el, ctx) },
  scalar_layouts: { grid: true, make: (el) => new LayoutsView(el, ctx) },
};

const panel = (name) => document.getElementById(`panel-${name}`);

/** The panel of `name`: index.html's, or one made as its entry in PANELS says. */
function panelOf(name, { grid }) {
  const found = panel(name);
  if (found) return found;
  const section = document.createElement('section');
  Object.assign(section, { id: `panel-${name}`, className: 'panel', hidden: true });
  section.setAttribute('role', 'tabpanel');
  section.setAttribute('aria-labelledby', `tab-${name}`);
  const empty = document.createElement('p');
  Object.assign(empty, { className: 'empty', hidden: true });
  section.append(empty);
  if (grid) {
    const root = document.createElement('div');
    root.className = 'grid-root';
    section.append(root);
  }
  document.querySelector('main.content').append(section);
  return section;
}

const views = Object.fromEntries(
  Object.entries(PANELS).map(([name, entry]) => [name, entry.make(panelOf(name, entry))]),
);
built.views = views;
const sidebar = new Sidebar(ctx);
bindSidebarWidth(document.getElementById('sidebar-resizer'));

// -- tabs ---------------------------------------------------------------------------

const tabList = document.querySelector('[role="tablist"]');
const tabMore = document.getElementById('tab-more');
let tabButtons = [];
let tabsSignature = '';

/**
 * The tabs that fit in the bar stay in it; the others (from the last, never the open one)
 * fold into the "More" menu beside it, so no tab is reachable only by scrolling the bar.
 */
function fitTabs() {
  for (const tab of tabButtons) tab.hidden = false;
  tabMore.hidden = true;
  if (tabList.scrollWidth <= tabList.clientWidth) return;
  tabMore.hidden = false;
  const folded = [];
  const fill = () => tabMore.replaceChildren(
    Object.assign(document.createElement('option'), { value: '', textContent: `More (${folded.length})…` }),
    ...folded.map((tab) => Object.assign(document.createElement('option'), { value: tab.dataset.tab, textContent: tab.textContent })),
  );
  // The menu's width grows with its options: fold until the bar and the menu both fit.
  for (let i = tabButtons.length - 1; i >= 0 && tabList.scrollWidth > tabList.clientWidth; i--) {
    if (tabButtons[i].dataset.tab === state.tab) continue;
    tabButtons[i].hidden = true;
    folded.unshift(tabButtons[i]);
    fill();
  }
  tabMore.value = '';
}
tabMore.addEventListener('change', () => {
  if (tabMore.value) showTab(tabMore.value);
});
window.addEventListener('resize', () => fitTabs());

const countOf = (kind) => (kind.record ? kind.tags : kind.runs);

/** One tab per kind the server lists that has a view here, in the server's order: those
 * with data, and Scalars and the open tab always. */
function buildTabs(kinds) {
  const shown = kinds.filter((kind) => Object.hasOwn(views, kind.name)
    && (countOf(kind) > 0 || kind.name === 'scalars' || kind.name === state.tab));
  const signature = JSON.stringify(shown.map((kind) => [kind.name, kind.title]));
  if (signature !== tabsSignature) {
    tabsSignature = signature;
    tabButtons = shown.map((kind) => tabButton(kind));
    tabList.replaceChildren(...tabButtons);
    selectTab(state.tab);
  }
  for (const kind of shown) {
    const count = countOf(kind);
    document.querySelector(`#tab-${kind.name} .tab-count`).textContent = count ? String(count) : '';
  }
  fitTabs();
}

function tabButton(kind) {
  const tab = document.createElement('button');
  Object.assign(tab, { type: 'button', id: `tab-${kind.name}` });
  tab.setAttribute('role', 'tab');
  tab.setAttribute('aria-controls', `panel-${kind.name}`);
  tab.dataset.tab = kind.name;
  const count = document.createElement('span');
  count.className = 'tab-count';
  tab.append(`${kind.title} `, count);
  tab.addEventListener('click', () => showTab(kind.name));
  tab.addEventListener('keydown', (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    const next = tabButtons[(tabButtons.indexOf(tab) + step + tabButtons.length) % tabButtons.length];
    next.focus();
    next.click();
  });
  return tab;
}

function selectTab(name) {
  for (const tab of tabButtons) {
    const selected = tab.dataset.tab === name;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
  const title = state.kinds.find((kind) => kind.name === name)?.title;
  document.title = title ? `${title} · VisualDL` : 'VisualDL';
}

function showTab(name) {
  // Own keys only: `name in views` also takes "constructor", "__proto__" or "toString" (#constructor).
  if (!Object.hasOwn(views, name)) name = 'scalars';
  state.tab = name;
  for (const other of Object.keys(views)) panel(other).hidden = other !== name;
  selectTab(name);
  fitTabs(); // the open tab is always in the bar
  ctx.viewChanged();
  views[name].update();
  views[name].refresh();
}

window.addEventListener('hashchange', () => showTab(parseView(location.hash).tab));

// -- histogram mode for all cards -----------------------------------------------------

for (const radio of document.querySelectorAll('input[name="histogram-mode"]')) {
  radio.checked = radio.value === ctx.histogramMode;
  radio.addEventListener('change', () => {
    if (!radio.checked) return;
    ctx.histogramMode = radio.value;
    ctx.save();
    views.histograms.forEachCard((card) => card.setMode(radio.value));
  });
}

// -- data and live refresh ------------------------------------------------------------

let updateQueued = false;
function scheduleUpdate() {
  if (updateQueued) return;
  updateQueued = true;
  setTimeout(() => {
    updateQueued = false;
    sidebar.renderRuns();
    views[state.tab].update();
  }, 0);
}

// Without a tab in the URL, the page opens on the first tab that has data once the
// server says what it holds (visualdl --model net.onnx alone opens on Graphs).
const askedTab = opened.tab;
let landed = Boolean(askedTab);

function land(kinds) {
  const withData = kinds.filter((kind) => Object.hasOwn(views, kind.name) && countOf(kind) > 0);
  if (!withData.length) {
    landed = state.loaded; // nothing anywhere yet: wait while the logs load
    return;
  }
  landed = true;
  if (!withData.some((kind) => kind.name === state.tab)) showTab(withData[0].name);
}

let known = '';
let lastAnswers = null; // the answers last taken: the same objects again (a 304) change nothing
/** Take new runs, tags and kinds; true if the runs or tags differ from the last ones. */
function setData(runs, tags, kinds) {
  if (lastAnswers && lastAnswers[0] === runs && lastAnswers[1] === tags && lastAnswers[2] === kinds) return false;
  lastAnswers = [runs, tags, kinds];
  state.runs = runs;
  state.runByName = new Map(runs.map((r) => [r.name, r]));
  runColors = assignColors(runs.map((r) => r.name));
  state.kinds = kinds;
  buildTabs(kinds);
  const signature = JSON.stringify([runs.map((r) => r.name), tags]);
  if (signature === known) return false;
  known = signature;
  state.tags = tags;
  return true;
}

let lastBytes = null;
let ticksSinceFull = 0;
let timer = 0;
let ticking = false;

async function tick({ force = false } = {}) {
  clearTimeout(timer);
  if (ticking) return;
  ticking = true;
  try {
    if (document.hidden && !force) return;
    const [health, runs, tags, kinds] = await Promise.all(
      [getJSON('health'), getJSON('runs'), getJSON('tags'), getJSON('kinds')],
    );
    const first = lastBytes === null;
    state.loaded = health.loaded;
    const missing = health.logdirs.filter((d) => !d.exists).map((d) => d.path);
    const missingChanged = missing.join('\u0000') !== state.missingLogdirs.join('\u0000');
    state.missingLogdirs = missing;
    const changed = setData(runs.runs, tags, kinds.kinds);
    if (!landed) land(kinds.kinds);
    sidebar.setHealth(health);
    const grown = health.bytes_read !== lastBytes;
    lastBytes = health.bytes_read;
    ticksSinceFull += 1;
    if (changed || first || missingChanged) {
      sidebar.renderRuns();
      views[state.tab].update();
    }
    if (!first && (force || grown || ticksSinceFull >= FULL_REFRESH_TICKS)) {
      ticksSinceFull = 0;
      // Wait for the cards' fetches and draws: slow drawing slows refresh, never piles up.
      await withTimeout(views[state.tab].refresh().then(renderIdle), CYCLE_TIMEOUT_MS);
    }
  } catch (error) {
    sidebar.setServerError(error);
  } finally {
    ticking = false;
    schedule();
  }
}

function withTimeout(promise, ms) {
  let timeout;
  return Promise.race([promise, new Promise((resolve) => { timeout = setTimeout(resolve, ms); })])
    .finally(() => clearTimeout(timeout));
}

function schedule() {
  clearTimeout(timer);
  if (ctx.refresh.enabled) timer = setTimeout(tick, ctx.refresh.seconds * 1000);
  else if (!state.loaded) timer = setTimeout(tick, 1000); // until the first load is done
}

const autoRefresh = document.getElementById('auto-refresh');
const interval = document.getElementById('refresh-interval');
autoRefresh.checked = ctx.refresh.enabled;
interval.value = String(ctx.refresh.seconds);
if (interval.value !== String(ctx.refresh.seconds)) {
  ctx.refresh.seconds = 2; // a saved interval no longer offered
  interval.value = '2';
}
autoRefresh.addEventListener('change', () => {
  ctx.refresh.enabled = autoRefresh.checked;
  ctx.save();
  schedule();
});
interval.addEventListener('change', () => {
  ctx.refresh.seconds = Number(interval.value);
  ctx.save();
  schedule();
});
document.getElementById('refresh-now').addEventListener('click', () => tick({ force: true }));
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) tick();
});

showTab(opened.tab);
tick().then(loadDeclarations);
setTimeout(loadPlotly, 1500); // for the views that draw later, if no chart asked for it sooner
