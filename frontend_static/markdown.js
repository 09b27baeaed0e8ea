// Text summaries rendered as Markdown, as TensorBoard renders them, without HTML: the text
// is parsed here into a small tree (parse, pure, tested under node) that toDom() turns into
// DOM nodes, text going in as text nodes only. HTML in a log stays inert text; a link is
// made only for http(s) and mailto addresses.
//
// Blocks: headings (#), fenced code (```), bullet and numbered lists, quotes (>), tables
// (| a | b | with a |---| row; `\|` a pipe in a cell; no header drawn when its cells are
// all empty), paragraphs. Inline: `code`, **strong**, *emphasis*,
// _emphasis_, [text](url), and line breaks kept within a paragraph.

const SAFE_URL = /^(https?:\/\/|mailto:)/i;

/** Inline Markdown -> [{t: 'text'|'code'|'strong'|'em'|'link'|'br', ...}]. */
export function inline(text) {
  const out = [];
  let i = 0;
  let plain = '';
  const flush = () => {
    if (plain) out.push({ t: 'text', text: plain });
    plain = '';
  };
  while (i < text.length) {
    const rest = text.slice(i);
    let m;
    if ((m = /^`([^`]+)`/.exec(rest))) {
      flush();
      out.push({ t: 'code', text: m[1] });
    } else if ((m = /^\*\*(?=\S)([\s\S]*?\S)\*\*/.exec(rest)) || (m = /^__(?=\S)([\s\S]*?\S)__/.exec(rest))) {
      flush();
      out.push({ t: 'strong', children: inline(m[1]) });
    } else if ((m = /^\*(?=[^\s*])([^*]*?[^\s*])\*/.exec(rest)) || (m = /^_(?=[^\s_])([^_]*?[^\s_])_(?![A-Za-z0-9])/.exec(rest))) {
      flush();
      out.push({ t: 'em', children: inline(m[1]) });
    } else if ((m = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(rest))) {
      flush();
      if (SAFE_URL.test(m[2])) out.push({ t: 'link', href: m[2], children: inline(m[1]) });
      else out.push({ t: 'text', text: m[0] }); // javascript: and the like stay text
    } else if (rest[0] === '\n') {
      flush();
      out.push({ t: 'br' });
      m = ['\n'];
    } else {
      plain += rest[0];
      m = [rest[0]];
    }
    i += m[0].length;
  }
  flush();
  return out;
}

/** A table row's cells: split at each `|` but an escaped one (`\|`, a pipe inside a cell). */
const cells = (line) => line.trim().replace(/^\|/, '').replace(/(?<!\\)\|$/, '').split(/(?<!\\)\|/)
  .map((c) => c.trim().replace(/\\\|/g, '|'));

/** Markdown -> [{t: 'h'|'code'|'ul'|'ol'|'quote'|'table'|'p', ...}]. */
export function parse(text) {
  const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
  const blocks = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (!line.trim()) {
      i += 1;
    } else if ((m = /^```\s*([\w+-]*)\s*$/.exec(line))) {
      const body = [];
      i += 1;
      while (i < lines.length && !/^```\s*$/.test(lines[i])) body.push(lines[i++]);
      i += 1; // the closing fence, or the end
      blocks.push({ t: 'code', lang: m[1], text: body.join('\n') });
    } else if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
      blocks.push({ t: 'h', level: m[1].length, children: inline(m[2].replace(/\s+#+\s*$/, '')) });
      i += 1;
    } else if (/^\s*([-*+])\s+/.test(line) || /^\s*\d+[.)]\s+/.test(line)) {
      const ordered = /^\s*\d+[.)]\s+/.test(line);
      const item = ordered ? /^\s*\d+[.)]\s+(.*)$/ : /^\s*[-*+]\s+(.*)$/;
      const items = [];
      while (i < lines.length && item.test(lines[i])) items.push(inline(item.exec(lines[i++])[1]));
      blocks.push({ t: ordered ? 'ol' : 'ul', items });
    } else if (/^\s*>/.test(line)) {
      const body = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) body.push(lines[i++].replace(/^\s*>\s?/, ''));
      blocks.push({ t: 'quote', children: parse(body.join('\n')) });
    } else if (line.includes('|') && i + 1 < lines.length && /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(lines[i + 1])) {
      const head = cells(line).map(inline);
      i += 2;
      const rows = [];
      while (i < lines.length && lines[i].includes('|') && lines[i].trim()) rows.push(cells(lines[i++]).map(inline));
      blocks.push({ t: 'table', head, rows });
    } else {
      const body = [];
      while (i < lines.length && lines[i].trim() && !/^(```|#{1,6}\s|\s*>)/.test(lines[i])) body.push(lines[i++]);
      blocks.push({ t: 'p', children: inline(body.join('\n')) });
    }
  }
  return blocks;
}

function inlineDom(nodes) {
  return nodes.map((n) => {
    if (n.t === 'text') return document.createTextNode(n.text);
    if (n.t === 'br') return document.createElement('br');
    const tag = { code: 'code', strong: 'strong', em: 'em', link: 'a' }[n.t];
    const el = document.createElement(tag);
    if (n.t === 'code') el.textContent = n.text;
    else el.append(...inlineDom(n.children));
    if (n.t === 'link') Object.assign(el, { href: n.href, rel: 'noopener noreferrer', target: '_blank' });
    return el;
  });
}

/** The DOM of parse(text): a fragment of block elements. */
export function toDom(text) {
  const fragment = document.createDocumentFragment();
  const block = (b) => {
    let el;
    if (b.t === 'h') (el = document.createElement(`h${Math.min(b.level + 2, 6)}`)).append(...inlineDom(b.children));
    else if (b.t === 'code') {
      el = document.createElement('pre');
      const code = document.createElement('code');
      code.textContent = b.text;
      el.append(code);
    } else if (b.t === 'ul' || b.t === 'ol') {
      el = document.createElement(b.t);
      for (const item of b.items) {
        const li = document.createElement('li');
        li.append(...inlineDom(item));
        el.append(li);
      }
    } else if (b.t === 'quote') {
      el = document.createElement('blockquote');
      for (const child of b.children) el.append(block(child));
    } else if (b.t === 'table') {
      el = document.createElement('table');
      const row = (cellsOf, tag) => {
        const tr = document.createElement('tr');
        for (const c of cellsOf) {
          const td = document.createElement(tag);
          td.append(...inlineDom(c));
          tr.append(td);
        }
        return tr;
      };
      const tbody = document.createElement('tbody');
      for (const r of b.rows) tbody.append(row(r, 'td'));
      if (b.head.every((c) => c.length === 0)) el.append(tbody); // no header (a text tensor's table)
      else {
        const thead = document.createElement('thead');
        thead.append(row(b.head, 'th'));
        el.append(thead, tbody);
      }
    } else (el = document.createElement('p')).append(...inlineDom(b.children));
    return el;
  };
  for (const b of parse(text)) fragment.append(block(b));
  return fragment;
}
