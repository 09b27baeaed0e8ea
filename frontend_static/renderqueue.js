// Plotly draws synchronously, and a chart of 100 runs takes a few hundred ms. Draws go
// through this queue: one owner's latest draw at a time, a few per animation frame
// within a time budget, so the page paints progressively and input gets through.

const BUDGET_MS = 12;
const queue = new Map(); // owner -> draw function (the latest replaces an older one)
let scheduled = false;
let waiters = [];

export function scheduleRender(owner, draw) {
  queue.delete(owner); // keep the order of the latest requests
  queue.set(owner, draw);
  if (!scheduled) {
    scheduled = true;
    requestAnimationFrame(run);
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
