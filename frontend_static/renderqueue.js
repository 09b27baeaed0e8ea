// Plotly draws synchronously, and a chart of 100 runs takes a few hundred ms. Draws go
// through this queue: one owner's latest draw at a time, a few per animation frame
// within a time budget, so the page paints progressively and input gets through. Every
// plotly call of the page goes through it (or through whenPlotly).

const BUDGET_MS = 12;
const queue = new Map(); // owner -> draw function (the latest replaces an older one)
let scheduled = false;
let waiters = [];

// plotly.js (4.8 MB, 1.5 MB gzipped) is downloaded from the start (a preload link in
// index.html) but run only once the first charts have been drawn without it (quickplot.js):
// parsing it takes the page's only thread for about a second on a small machine. The page,
// its sidebar and tabs and the data requests never wait for it; only plotly draws do,
// queued here until it is there.
let plotlyState = 'idle'; // 'loading', 'ready' or 'failed'
const plotlyWaiters = [];

/** Run plotly.js (the preloaded file) unless it is running or ran. */
export function loadPlotly() {
  if (plotlyState !== 'idle') return;
  if (window.Plotly !== undefined) {
    plotlyState = 'ready';
    return;
  }
  plotlyState = 'loading';
  const script = document.createElement('script');
  script.src = document.getElementById('plotly-preload')?.href ?? 'vendor/plotly.min.js';
  script.async = true;
  script.addEventListener('load', () => settle('ready'));
  script.addEventListener('error', () => {
    console.error('VisualDL: plotly.js did not load; charts cannot be drawn');
    settle('failed');
  });
  document.head.append(script);
}

function settle(state) {
  plotlyState = state;
  for (const fn of plotlyWaiters.splice(0)) fn();
}

/** Call `fn` once plotly.js has run (at once if it has); start it after this frame is painted. */
export function whenPlotly(fn) {
  if (window.Plotly !== undefined || plotlyState === 'failed') {
    fn();
    return;
  }
  plotlyWaiters.push(fn);
  requestAnimationFrame(() => setTimeout(loadPlotly, 0)); // after the paint of what is drawn now
}

export function scheduleRender(owner, draw) {
  queue.delete(owner); // keep the order of the latest requests
  queue.set(owner, draw);
  if (!scheduled) {
    scheduled = true;
    whenPlotly(() => requestAnimationFrame(run));
  }
}

export function cancelRender(owner) {
  queue.delete(owner);
}

/** Resolves once every queued draw has run. */
export function renderIdle() {
  if (!queue.size) return Promise.resolve();
  return new Promise((resolve) => waiters.push(resolve));
}

function run() {
  const start = performance.now();
  for (const [owner, draw] of queue) {
    queue.delete(owner);
    try {
      draw();
    } catch (error) {
      console.error('VisualDL: drawing a chart failed', error);
    }
    if (performance.now() - start > BUDGET_MS) break;
  }
  if (queue.size) {
    requestAnimationFrame(run);
    return;
  }
  scheduled = false;
  const done = waiters;
  waiters = [];
  for (const resolve of done) resolve();
}
