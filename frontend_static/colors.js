// Colours of runs and lines. Each name has a home colour, a hash of the name into a fixed
// palette, so a run keeps its colour whatever other runs appear or disappear; names that
// would share a colour with one already given (in the order given: the runs as the server
// lists them, then a chart's other lines) take the next free one, so up to 20 lines of
// one chart are never drawn alike. The notebook assigns colours the same way.

// Tableau's ten, then ten more picked to be as far from all before them as can be (CIELAB,
// lightness 32..68 so every one reads on white): no two closer than Tableau's own two.
export const PALETTE = [
  '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f',
  '#465505', '#a0004b', '#d29b55', '#0a875f', '#fa7d87', '#23297a', '#9b4600', '#91007d', '#91af5f', '#5f4164',
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

/** The home colour of `name`. */
export function colorOf(name) {
  return PALETTE[hash(name) % PALETTE.length];
}

/**
 * Colours for `keys`, in their order: a key `given` has a colour for keeps it; the others
 * take their home colour, or the next one of the palette not yet taken (while any is free).
 */
export function assignColors(keys, given = () => undefined) {
  const out = new Map();
  const used = new Set();
  const rest = [];
  for (const key of keys) {
    const color = given(key);
    if (color === undefined) rest.push(key);
    else {
      out.set(key, color);
      used.add(color);
    }
  }
  for (const key of rest) {
    if (out.has(key)) continue;
    let slot = hash(key) % PALETTE.length;
    for (let tries = 0; tries < PALETTE.length && used.has(PALETTE[slot]); tries++) slot = (slot + 1) % PALETTE.length;
    out.set(key, PALETTE[slot]);
    used.add(PALETTE[slot]);
  }
  return out;
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
