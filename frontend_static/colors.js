// A stable colour per run: a hash of the run's name picks from a fixed palette, so a
// run keeps its colour whatever other runs appear or disappear.

export const PALETTE = [
  '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf',
  '#b08d00', '#393b79', '#00a087', '#c2185b', '#5f6b7a', '#6b8e23', '#a0522d', '#4d9de0',
];

/** 32-bit FNV-1a over the UTF-16 code units of `text`. */
export function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function colorOf(run) {
  return PALETTE[hash(run) % PALETTE.length];
}

function channels(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export function withAlpha(hex, alpha) {
  return `rgba(${channels(hex).join(',')},${alpha})`;
}

/** `hex` mixed with white: t = 0 gives the colour, t = 1 white. */
export function lighten(hex, t) {
  const [r, g, b] = channels(hex).map((c) => Math.round(c + (255 - c) * t));
  return `rgb(${r},${g},${b})`;
}
