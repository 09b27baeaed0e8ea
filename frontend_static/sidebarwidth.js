// The sidebar's width, set by dragging its right edge (or the arrow keys on it; a double
// click gives the default back), kept in this browser: long run names are read whole by
// widening it.

export const DEFAULT_PX = 280;
export const MIN_PX = 180;
const KEY = 'visualdl.sidebar.v1';
const STEP_PX = 24;

/** The widest the sidebar may be in a window `viewport` px wide: the charts keep 360 px. */
export function clampWidth(px, viewport) {
  const most = Math.max(MIN_PX, viewport - 360);
  return Math.round(Math.min(Math.max(Number(px) || DEFAULT_PX, MIN_PX), most));
}

export function bindSidebarWidth(handle, root = document.documentElement, store = globalThis.localStorage) {
  const set = (px, save) => {
    const width = clampWidth(px, window.innerWidth);
    root.style.setProperty('--sidebar', `${width}px`);
    handle.setAttribute('aria-valuenow', String(width));
    if (save) {
      try {
        store?.setItem(KEY, String(width));
      } catch {
        // storage disabled: the width lasts as long as the page
      }
    }
    window.dispatchEvent(new Event('resize')); // plotly's charts follow their cards
    return width;
  };
  let saved = null;
  try {
    saved = store?.getItem(KEY);
  } catch {
    saved = null;
  }
  handle.setAttribute('aria-valuemin', String(MIN_PX));
  set(saved ?? DEFAULT_PX, false);
  handle.addEventListener('pointerdown', (event) => {
    event.preventDefault();
    handle.setPointerCapture(event.pointerId);
    const left = handle.parentElement.getBoundingClientRect().left;
    const move = (e) => set(e.clientX - left, false);
    const up = (e) => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      set(e.clientX - left, true);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
  });
  handle.addEventListener('keydown', (event) => {
    const now = Number(handle.getAttribute('aria-valuenow'));
    if (event.key === 'ArrowRight') set(now + STEP_PX, true);
    else if (event.key === 'ArrowLeft') set(now - STEP_PX, true);
    else return;
    event.preventDefault();
  });
  handle.addEventListener('dblclick', () => set(DEFAULT_PX, true));
}
