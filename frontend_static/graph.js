// The Graphs tab: an ONNX model laid out by the server (/api/graph), drawn as SVG. Pan
// with the mouse, zoom with the wheel; name-scope groups open on click; a click on a node
// shows its attributes, inputs, outputs and parameters; search opens the groups holding
// the hits and highlights them; If/Loop/Scan bodies open with a breadcrumb back; the
// drawing exports as SVG or PNG. Only what the server laid out (the open groups) is drawn.

import { ApiError, getJSON } from './api.js';
import { button, h, saveFile } from './dom.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
export const CATEGORY_COLORS = {
  conv: '#4e79a7', matmul: '#2f6f9f', activation: '#f28e2b', pooling: '#59a14f', normalization: '#b07aa1', shape: '#9c755f',
  control: '#e15759', custom: '#76b7b2', other: '#8c8c8c',
};
const LABELS_FROM_ZOOM = 1.3; // edge shapes are written on the edges from this zoom on
const LEGIBLE_ZOOM = 0.6; // below this zoom a node's 11 px label is too small to read
const OPEN_ZOOM = 0.9; // where a graph too large to fit legibly opens (on its inputs)
const SVG_STYLE = `
  .edge { fill: none; stroke: #8a8f98; stroke-width: 1.2; }
  .edge.control { stroke-dasharray: 3 3; }
  .edge-label { font: 10px system-ui, sans-serif; fill: #555; }
  .edge-labels { display: none; }
  .show-edge-labels .edge-labels { display: inline; }
  .node rect { stroke: #333; stroke-width: 0.6; }
  .node text { font: 11px system-ui, sans-serif; fill: #fff; pointer-events: none; }
  .node .op { font-size: 9px; opacity: 0.85; }
  .node.group rect { fill: #eef2f8; stroke: #7d8da8; stroke-dasharray: 4 2; }
  .node.group text { fill: #1d2b45; }
  .node.io rect { fill: #fff; stroke: #555; }
  .node.io text { fill: #222; }
  .node.hit rect { stroke: #ffd400; stroke-width: 4; }
  .node.selected rect { stroke: #000; stroke-width: 2.5; }
  .node text.folded { font-size: 9px; font-weight: 600; }
  .node.stack rect.stack-back { fill: #f6f8fb; stroke: #9aa7bd; stroke-dasharray: none; }
`;

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const shapeText = (shape) => (shape ? `[${shape.join(', ')}]` : '');
/** A long name that wraps after its separators (. / _ : -), never inside a word or a number. */
function breakable(name) {
  const out = [];
  for (const part of String(name).split(/(?<=[./_:-])/)) out.push(part, document.createElement('wbr'));
  return out.slice(0, -1);
}

// Text cut to a box by its measured width in the font it is drawn in (11 px labels, 9 px
// second lines), not by a guess per character: a box with room shows the whole label.
let measurer = null;
function textWidth(text, size) {
  measurer ??= document.createElement('canvas').getContext('2d');
  measurer.font = `${size}px system-ui, sans-serif`;
  return measurer.measureText(text).width;
}

const fit = (text, width, size = 11) => {
  const room = width - 16;
  if (textWidth(text, size) <= room) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) { // the longest prefix that fits with its ellipsis
    const mid = (lo + hi + 1) >> 1;
    if (textWidth(`${text.slice(0, mid)}…`, size) <= room) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, Math.max(lo, 1))}…`;
};

export class GraphView {
  constructor(panel, ctx) {
    this.ctx = ctx;
    this.select = panel.querySelector('#graph-source');
    this.search = panel.querySelector('#graph-search');
    this.crumbs = panel.querySelector('.graph-crumbs');
    this.message = panel.querySelector('.graph-message');
    this.side = panel.querySelector('.graph-side');
    this.host = panel.querySelector('.graph-canvas');
    this.sources = [];
    this.current = null; // {source params, path, expand}
    this.data = null;
    this.hits = new Set();
    this.seq = 0;
    this.view = { x: 20, y: 20, k: 1 };
    this.svg = svg('svg', { id: 'graph-svg', width: '100%', height: '100%' });
    this.svg.append(svg('style', {}, SVG_STYLE));
    this.viewport = svg('g', { class: 'viewport' });
    this.svg.append(this.viewport);
    this.host.append(this.svg);
    // The overview: every box of the graph, and the part of it in view; a click goes there.
    this.minimap = svg('svg', { class: 'graph-minimap', preserveAspectRatio: 'xMidYMid meet' });
    this.minimapBoxes = svg('g', { class: 'minimap-boxes' });
    this.minimapView = svg('rect', { class: 'minimap-view' });
    this.minimap.append(this.minimapBoxes, this.minimapView);
    this.host.append(this.minimap);
    this.bindEvents(panel);
  }

  drawMinimap() {
    const { nodes, width, height } = this.data;
    const w = Math.max(width, 1);
    const hgt = Math.max(height, 1);
    this.minimap.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
    this.minimapBoxes.replaceChildren(...nodes.map((n) => svg('rect', {
      x: n.x - n.w / 2, y: n.y - n.h / 2, width: n.w, height: n.h,
      fill: n.kind === 'op' ? CATEGORY_COLORS[n.category] ?? CATEGORY_COLORS.other : '#9aa7bd',
    })));
  }

  updateMinimap() {
    if (!this.data) return;
    const rect = this.host.getBoundingClientRect();
    const { x, y, k } = this.view;
    const shown = { x: -x / k, y: -y / k, w: rect.width / k, h: rect.height / k };
    const whole = shown.x <= 0 && shown.y <= 0 && shown.x + shown.w >= this.data.width && shown.y + shown.h >= this.data.height;
    this.minimap.classList.toggle('hidden', whole); // all of it in view: no overview needed
    for (const [key, value] of Object.entries({ x: shown.x, y: shown.y, width: shown.w, height: shown.h })) {
      this.minimapView.setAttribute(key, String(value));
    }
    this.minimapView.setAttribute('stroke-width', String(Math.max(this.data.width, this.data.height) / 150));
  }

  bindEvents(panel) {
    this.select.addEventListener('change', () => this.open(this.sources[Number(this.select.value)]));
    panel.querySelector('#graph-search-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.find(this.search.value.trim());
    });
    panel.querySelector('#graph-fit').addEventListener('click', () => this.fit());
    this.minimap.addEventListener('pointerdown', (event) => {
      event.stopPropagation(); // not a drag of the canvas
      const box = this.minimap.getBoundingClientRect();
      const scale = Math.min(box.width / Math.max(this.data.width, 1), box.height / Math.max(this.data.height, 1));
      const gx = (event.clientX - box.left - (box.width - this.data.width * scale) / 2) / scale;
      const gy = (event.clientY - box.top - (box.height - this.data.height * scale) / 2) / scale;
      const rect = this.host.getBoundingClientRect();
      this.view = { ...this.view, x: rect.width / 2 - gx * this.view.k, y: rect.height / 2 - gy * this.view.k };
      this.applyView();
    });
    panel.querySelector('#graph-collapse').addEventListener('click', () => this.load({ expand: [] }));
    panel.querySelector('#graph-props').addEventListener('click', () => this.showProperties());
    panel.querySelector('#graph-svg-export').addEventListener('click', () => saveFile('graph.svg', this.svgText(), 'image/svg+xml'));
    panel.querySelector('#graph-png-export').addEventListener('click', () => this.savePNG());
    let drag = null;
    this.svg.addEventListener('pointerdown', (event) => {
      if (event.target.closest('.node')) return;
      drag = { x: event.clientX - this.view.x, y: event.clientY - this.view.y };
      this.svg.setPointerCapture(event.pointerId);
    });
    this.svg.addEventListener('pointermove', (event) => {
      if (!drag) return;
      this.view.x = event.clientX - drag.x;
      this.view.y = event.clientY - drag.y;
      this.applyView();
    });
    this.svg.addEventListener('pointerup', () => { drag = null; });
    this.svg.addEventListener('wheel', (event) => {
      event.preventDefault();
      const rect = this.svg.getBoundingClientRect();
      const px = event.clientX - rect.left;
      const py = event.clientY - rect.top;
      const k = Math.min(8, Math.max(0.02, this.view.k * Math.exp(-event.deltaY * 0.0015)));
      this.view.x = px - ((px - this.view.x) * k) / this.view.k;
      this.view.y = py - ((py - this.view.y) * k) / this.view.k;
      this.view.k = k;
      this.applyView();
    }, { passive: false });
    this.viewport.addEventListener('click', (event) => {
      const node = event.target.closest('.node');
      if (node) this.clickNode(node.dataset.id);
    });
  }

  async update() {
    try {
      const { graphs } = await getJSON('graphs');
      const signature = JSON.stringify(graphs.map((g) => [g.run, g.name, g.model]));
      if (signature !== this.signature) {
        this.signature = signature;
        this.sources = graphs;
        this.select.replaceChildren(...graphs.map((g, i) => h('option', { value: String(i) },
          g.source === 'file' ? `${g.name} (model file)` : `${g.run} / ${g.name}`)));
        if (!this.current && graphs.length) this.open(graphs[0]);
      }
      this.message.hidden = graphs.length > 0;
      if (!graphs.length) this.message.textContent = 'No graphs yet: log one with writer.add_graph(model) or start the server with --model FILE.onnx.';
    } catch (error) {
      this.showError(error);
    }
  }

  refresh() {
    return Promise.resolve(); // a graph does not change while shown; new graphs come with update()
  }

  open(source) {
    if (!source) return;
    const params = source.source === 'file' ? { model: source.model } : { run: source.run, name: source.name };
    this.current = { params, path: '', expand: undefined };
    this.hits = new Set();
    this.side.hidden = true; // the details of another graph's node
    this.load({});
  }

  async load({ expand, path, fitAfter = true } = {}) {
    if (!this.current) return;
    if (path !== undefined) {
      this.current.path = path;
      this.current.expand = undefined;
    }
    if (expand !== undefined) this.current.expand = expand;
    const seq = ++this.seq;
    const query = { ...this.current.params, path: this.current.path || undefined };
    if (this.current.expand !== undefined) {
      if (this.current.expand.length) query.expand = this.current.expand;
      else query.collapsed = '1';
    }
    this.host.dataset.state = 'loading';
    try {
      const data = await getJSON('graph', query);
      if (seq !== this.seq) return;
      this.data = data;
      this.current.expand = data.expanded;
      this.message.hidden = !data.warnings.length;
      this.message.textContent = data.warnings.join(' ');
      this.draw();
      if (fitAfter) this.firstView();
      this.drawCrumbs();
      this.host.dataset.state = 'ready';
    } catch (error) {
      if (seq === this.seq) this.showError(error);
    }
  }

  showError(error) {
    this.host.dataset.state = 'error';
    this.viewport.replaceChildren();
    this.message.hidden = false;
    const status = error instanceof ApiError && error.status === 422 ? 'This model cannot be shown: ' : '';
    this.message.textContent = `${status}${error.message}`;
    this.message.classList.add('error');
  }

  draw() {
    const { nodes, edges } = this.data;
    this.message.classList.remove('error');
    const edgeLayer = svg('g', { class: 'edges' });
    const labelLayer = svg('g', { class: 'edge-labels' });
    for (const e of edges) {
      if (!e.points.length) continue;
      const d = `M${e.points.map((p) => p.join(',')).join('L')}`;
      const title = `${e.value}${e.count > 1 ? ` (+${e.count - 1} more)` : ''}  ${e.dtype} ${shapeText(e.shape)}`;
      // A GraphDef's control input is the value "^node" (it orders, carries nothing): dashed, as TensorBoard draws it.
      const kind = e.value.startsWith('^') && e.count === 1 ? 'edge control' : 'edge';
      edgeLayer.append(svg('path', { class: kind, d, 'marker-end': 'url(#arrow)' }, svg('title', {}, title)));
      if (e.shape || e.dtype) {
        const [x0, y0] = e.points[0];
        labelLayer.append(svg('text', { class: 'edge-label', x: x0 + 4, y: y0 + 11 }, shapeText(e.shape) || e.dtype));
      }
    }
    const nodeLayer = svg('g', { class: 'nodes' });
    for (const n of nodes) {
      const cls = n.kind === 'group' ? 'node group' : n.kind === 'stack' ? 'node group stack' : n.kind === 'op' ? 'node op-node' : 'node io';
      const g = svg('g', { class: `${cls}${this.hits.has(n.id) ? ' hit' : ''}`, 'data-id': n.id, transform: `translate(${n.x - n.w / 2},${n.y - n.h / 2})` });
      const fill = n.kind === 'op' ? CATEGORY_COLORS[n.category] ?? CATEGORY_COLORS.other : undefined;
      if (n.kind === 'stack') g.append(svg('rect', { class: 'stack-back', x: 5, y: -5, width: n.w, height: n.h, rx: 8 }));
      g.append(svg('rect', { width: n.w, height: n.h, rx: n.kind === 'op' ? 5 : n.kind === 'group' || n.kind === 'stack' ? 8 : 13, fill }));
      if (n.kind === 'op') {
        g.append(svg('text', { x: 8, y: 15 }, fit(n.label, n.w)), svg('text', { class: 'op', x: 8, y: 28 }, fit(n.op_type, n.w, 9)));
        const folded = n.folded ? ` · takes ${n.folded} folded constant node${n.folded > 1 ? 's' : ''} (see details)` : '';
        if (n.folded) g.append(svg('text', { class: 'folded', x: n.w - 5, y: 12, 'text-anchor': 'end' }, `+${n.folded}`));
        g.append(svg('title', {}, `${n.name} (${n.op_type})${folded}`));
      } else if (n.kind === 'stack') {
        g.append(svg('text', { x: 10, y: 20 }, fit(n.label, n.w)), svg('text', { class: 'op', x: 10, y: 36 }, `${n.count.toLocaleString()} alike · click to open`));
        g.append(svg('title', {}, `${n.count.toLocaleString()} siblings alike, the first ${n.sample}`));
      } else if (n.kind === 'group') {
        // about: a torch module's class, or "4 blocks alike" for a run of repeated blocks.
        // Its second line: what it is (a module class, a run alike), else its main ops.
        const ops = Object.entries(n.ops).slice(0, 3).map(([op, c]) => `${c} ${op}`).join(', ');
        const second = n.about ? `${n.about} · ${n.count} nodes` : `${n.count} nodes: ${ops}`;
        g.append(svg('text', { x: 10, y: 20 }, fit(n.label, n.w)), svg('text', { class: 'op', x: 10, y: 36 }, fit(second, n.w, 9)));
        g.append(svg('title', {}, `${n.path}${n.about ? ` (${n.about})` : ''}: ${Object.entries(n.ops).map(([op, c]) => `${c} ${op}`).join(', ')} · click to open`));
      } else {
        g.append(svg('text', { x: 10, y: 17 }, fit(`${n.kind === 'input' ? '▶ ' : '◀ '}${n.label}`, n.w)));
        g.append(svg('title', {}, `${n.kind} ${n.label} ${n.dtype ?? ''} ${shapeText(n.shape)}`));
      }
      nodeLayer.append(g);
    }
    const defs = svg('defs', {}, svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
      svg('path', { d: 'M0,0L10,5L0,10z', fill: '#8a8f98' })));
    this.viewport.replaceChildren(defs, edgeLayer, labelLayer, nodeLayer);
    this.drawMinimap();
    this.applyView();
  }

  applyView() {
    const { x, y, k } = this.view;
    this.viewport.setAttribute('transform', `translate(${x},${y}) scale(${k})`);
    this.svg.classList.toggle('show-edge-labels', k >= LABELS_FROM_ZOOM);
    this.updateMinimap();
  }

  /** The zoom at which the whole graph fits the canvas (whatever the size: no floor). */
  fitZoom() {
    const rect = this.host.getBoundingClientRect();
    const w = Math.max(this.data.width, 1);
    const hgt = Math.max(this.data.height, 1);
    return Math.min(2, Math.max(1e-4, Math.min((rect.width - 40) / w, (rect.height - 40) / hgt)));
  }

  fit() {
    if (!this.data) return;
    const rect = this.host.getBoundingClientRect();
    const k = this.fitZoom();
    this.view = { k, x: (rect.width - Math.max(this.data.width, 1) * k) / 2, y: 20 };
    this.applyView();
  }

  /** A graph opens fitted when its labels are then legible; else at a legible zoom, on its inputs. */
  firstView() {
    if (!this.data) return;
    if (this.fitZoom() >= LEGIBLE_ZOOM) {
      this.fit();
      return;
    }
    const rect = this.host.getBoundingClientRect();
    const top = this.data.nodes.filter((n) => n.kind === 'input');
    const first = top.length ? top : this.data.nodes.filter((n) => n.y === Math.min(...this.data.nodes.map((m) => m.y)));
    const cx = first.reduce((sum, n) => sum + n.x, 0) / Math.max(first.length, 1);
    const k = OPEN_ZOOM;
    this.view = { k, x: rect.width / 2 - cx * k, y: 20 };
    this.applyView();
  }

  focusOn(id) {
    const n = this.data?.nodes.find((m) => m.id === id);
    if (!n) return;
    const rect = this.host.getBoundingClientRect();
    const k = Math.max(this.view.k, 0.8);
    this.view = { k, x: rect.width / 2 - n.x * k, y: rect.height / 2 - n.y * k };
    this.applyView();
  }

  clickNode(id) {
    const n = this.data.nodes.find((m) => m.id === id);
    if (!n) return;
    if (n.kind === 'group' || n.kind === 'stack') {
      this.load({ expand: [...this.current.expand, n.kind === 'group' ? n.path : n.stack], fitAfter: false });
      return;
    }
    for (const el of this.viewport.querySelectorAll('.node.selected')) el.classList.remove('selected');
    this.viewport.querySelector(`.node[data-id="${CSS.escape(id)}"]`)?.classList.add('selected');
    this.selectedId = id;
    if (n.kind === 'op') this.showNode(id);
    else this.showPanel(`${n.kind === 'input' ? 'Graph input' : 'Graph output'} ${n.label}`, [
      h('p', {}, `${n.dtype ?? ''} ${shapeText(n.shape)}`)]);
  }

  async showNode(id) {
    try {
      const detail = await getJSON('graph/node', { ...this.current.params, path: this.current.path || undefined, node: id });
      const rows = (list) => h('table', { class: 'kv' }, list.map((v) => h('tr', {},
        h('td', {}, breakable(v.name)), h('td', {}, `${v.dtype} ${shapeText(v.shape)}`), h('td', { class: 'muted' }, v.param ? `parameter, ${v.param.size.toLocaleString()} values` : ''))));
      const attrs = h('table', { class: 'kv attributes' }, detail.attributes.map((a) => h('tr', {},
        h('td', {}, a.name), h('td', {}, typeof a.value === 'object' ? JSON.stringify(a.value) : String(a.value)))));
      const parts = [
        h('p', { class: 'muted' }, `${detail.op_type}${detail.domain ? ` (${detail.domain})` : ''} · ${detail.category}`),
        detail.groups.length ? h('p', { class: 'muted' }, `in ${detail.groups[detail.groups.length - 1]}`) : null,
        h('h4', {}, 'Attributes'), detail.attributes.length ? attrs : h('p', { class: 'muted' }, 'none'),
        h('h4', {}, 'Inputs'), rows(detail.inputs),
        h('h4', {}, 'Outputs'), rows(detail.outputs),
        h('h4', {}, `Parameters: ${detail.parameter_count.toLocaleString()} values`),
      ];
      if (detail.folded?.length) {
        // Nodes that only compute constants for this one: not drawn on their own.
        parts.push(h('h4', {}, `Folded constants: ${detail.folded.length} node${detail.folded.length > 1 ? 's' : ''}`),
          h('table', { class: 'kv folded' }, detail.folded.map((f) => h('tr', {},
            h('td', {}, f.name), h('td', {}, f.op_type),
            h('td', { class: 'muted' }, f.outputs.map((v) => `${v.dtype} ${shapeText(v.shape)}`).join(', '))))));
      }
      const node = this.data.nodes.find((m) => m.id === id);
      for (const attr of node?.subgraphs ?? []) {
        const index = id.slice(1);
        const step = `${index}.${attr}.0`;
        parts.push(button(`Open ${attr}`, () => this.load({ path: this.current.path ? `${this.current.path}|${step}` : step }), { class: 'open-subgraph' }));
      }
      this.showPanel(detail.name, parts);
    } catch (error) {
      this.showPanel('Node', [h('p', { class: 'error' }, error.message)]);
    }
  }

  showPanel(title, children) {
    this.side.replaceChildren(h('h3', {}, title), ...children.filter(Boolean));
    this.side.hidden = false;
    requestAnimationFrame(() => this.keepInView(this.selectedId)); // the panel narrowed the canvas
  }

  /** Pan so that node `id` is inside the canvas (the side panel may now cover where it was). */
  keepInView(id) {
    const n = this.data?.nodes.find((m) => m.id === id);
    if (!n) return;
    const rect = this.host.getBoundingClientRect();
    const { k } = this.view;
    const left = this.view.x + (n.x - n.w / 2) * k;
    const right = this.view.x + (n.x + n.w / 2) * k;
    if (left >= 8 && right <= rect.width - 8) return;
    this.view = { ...this.view, x: rect.width / 2 - n.x * k };
    this.applyView();
  }

  showProperties() {
    if (!this.data) return;
    const m = this.data.model;
    const g = this.data.graph;
    const row = (k, v) => h('tr', {}, h('td', {}, k), h('td', {}, v));
    this.showPanel('Model properties', [h('table', { class: 'kv model-props' },
      row('graph', g.name), row('nodes', g.node_count.toLocaleString()), row('groups', String(g.group_count)),
      row('parameters', `${g.parameter_count.toLocaleString()} in ${g.parameter_tensors} tensors`),
      row('IR version', String(m.ir_version)),
      row('opsets', m.opset_import.map((o) => `${o.domain} ${o.version}`).join(', ')),
      row('producer', `${m.producer_name} ${m.producer_version}`.trim()), row('domain', m.domain),
      row('model version', String(m.model_version)), row('doc', m.doc_string),
      ...Object.entries(m.metadata_props).map(([k, v]) => row(k, v)),
      row('inputs', g.inputs.map((v) => `${v.name} ${v.dtype ?? ''} ${shapeText(v.shape)}`).join('; ')),
      row('outputs', g.outputs.map((v) => `${v.name} ${v.dtype ?? ''} ${shapeText(v.shape)}`).join('; ')),
      row('functions', m.functions.map((f) => `${f.domain}.${f.name} (${f.nodes} nodes)`).join('; ') || 'none'))]);
  }

  drawCrumbs() {
    const steps = this.current.path ? this.current.path.split('|') : [];
    this.crumbs.replaceChildren(...this.data.breadcrumb.map((label, i) => (i < steps.length
      ? h('span', {}, button(label, () => this.load({ path: steps.slice(0, i).join('|') }), { class: 'crumb' }), ' › ')
      : h('span', { class: 'crumb current' }, label))));
  }

  async find(query) {
    if (!query || !this.current) return;
    try {
      const { hits } = await getJSON('graph/search', { ...this.current.params, path: this.current.path || undefined, q: query });
      this.hits = new Set(hits.map((hit) => hit.id));
      if (!hits.length) {
        this.message.hidden = false;
        this.message.textContent = `No node matches ${JSON.stringify(query)}.`;
        return;
      }
      const groups = new Set(this.current.expand);
      for (const hit of hits.slice(0, 50)) for (const g of hit.groups) groups.add(g);
      await this.load({ expand: [...groups], fitAfter: false });
      this.message.hidden = false;
      this.message.textContent = `${hits.length}${hits.length >= 200 ? '+' : ''} nodes match ${JSON.stringify(query)}${hits.length > 50 ? '; the groups of the first 50 are open' : ''}.`;
      this.focusOn(hits[0].id);
    } catch (error) {
      this.showError(error);
    }
  }

  svgText() {
    const clone = this.svg.cloneNode(true);
    clone.setAttribute('xmlns', SVG_NS);
    clone.setAttribute('width', String(Math.ceil(this.data?.width ?? 100) + 40));
    clone.setAttribute('height', String(Math.ceil(this.data?.height ?? 100) + 40));
    clone.querySelector('.viewport').setAttribute('transform', 'translate(20,20)');
    return new XMLSerializer().serializeToString(clone);
  }

  savePNG() {
    const text = this.svgText();
    const image = new Image();
    const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
    image.onload = () => {
      const scale = Math.min(2, 16000 / Math.max(image.width, image.height));
      const canvas = h('canvas', { width: Math.ceil(image.width * scale), height: Math.ceil(image.height * scale) });
      const g = canvas.getContext('2d');
      g.fillStyle = '#fff';
      g.fillRect(0, 0, canvas.width, canvas.height);
      g.drawImage(image, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(url);
      canvas.toBlob((blob) => {
        const link = h('a', { href: URL.createObjectURL(blob), download: 'graph.png', hidden: true });
        document.body.append(link);
        link.click();
        link.remove();
      });
    };
    image.src = url;
  }
}
