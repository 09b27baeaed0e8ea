// Tiny DOM helpers. Text always goes in as text nodes: nothing from the logs is ever
// parsed as HTML.

/** h('div', {class: 'x', onclick: fn, dataset: {...}}, child, 'text', ...) */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'style') Object.assign(el.style, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key.startsWith('aria-') || key === 'for' || key === 'role') el.setAttribute(key, value === true ? 'true' : value);
    else if (key in el) el[key] = value;
    else el.setAttribute(key, value === true ? '' : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function button(label, onclick, props = {}) {
  return h('button', { type: 'button', onclick, ...props }, label);
}

/** A run's colour swatch and name, as shown in card headers. */
export function runChip(run, color) {
  return h('span', { class: 'run-chip', title: run }, h('span', { class: 'swatch', style: { background: color } }), run);
}

/** Compile a user's regex (case-insensitive): {re} or {error}; empty text matches all. */
export function compileFilter(text) {
  if (!text) return { re: null, error: null };
  try {
    return { re: new RegExp(text, 'i'), error: null };
  } catch (error) {
    const reason = error.message.replace(/^Invalid regular expression: \/.*\/\w*: /, '');
    return { re: null, error: `Invalid regex: ${reason}` };
  }
}

export function matches(filter, text) {
  return !filter.re || filter.re.test(text);
}

/** Tags group by the text before their first '/' (a tag without one is its own group). */
export function groupOf(tag) {
  const cut = tag.indexOf('/');
  return cut > 0 ? tag.slice(0, cut) : tag;
}

const NUMBER = /(\d+(?:\.\d+)?)/;

/**
 * Runs in the server's natural order (visualdl/_index/runtable.py natural_key): numbers in a
 * name compare as numbers, decimals included (lr0.01 before lr0.1, seed2 before seed10),
 * the text between them by code point; equal as numbers (seed01, seed1): by their text.
 */
export function runOrder(a, b) {
  const x = a.split(NUMBER);
  const y = b.split(NUMBER);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue;
    if (i % 2) {
      const d = Number(x[i]) - Number(y[i]);
      if (d) return d;
      continue;
    }
    return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length || (a < b ? -1 : a > b ? 1 : 0);
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
export const naturalCompare = (a, b) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);

/** Save text as a file through a temporary blob link. */
export function saveFile(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function safeFileName(text) {
  return text.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '') || 'chart';
}

/** Call `draw()` once per animation frame while `el` scrolls (a virtual list's window). */
export function onScrollFrame(el, draw) {
  let pending = false;
  el.addEventListener('scroll', () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw();
    });
  });
}
