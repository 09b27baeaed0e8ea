// The Projector tab (embeddings): a run's tag projected by PCA, t-SNE or UMAP to 2-D or 3-D
// on the server, drawn with WebGL (one trace, a colour per point), coloured by a metadata
// column, searchable over a column, and the nearest neighbours of a clicked point listed
// (distances in the original space) and highlighted. Entries with label images (TensorBoard's
// sprite, add_embedding's label_img) show each listed point's image, cut from the sprite by CSS.

import { ApiError, apiUrl, getJSON } from './api.js';
import { PALETTE } from './colors.js';
import { button, h, naturalCompare } from './dom.js';
import { escPlotly } from './format.js';
import { scheduleRender } from './renderqueue.js';

const CONFIG = { displaylogo: false, responsive: true };
const POLL_MS = 700;
const LEGEND_LABELS = 12;
const THUMB_PX = 40;

/** base64 of little-endian float32 -> Float32Array. */
export function floats(text) {
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return new Float32Array(bytes.buffer);
}

/** Colours of the points by a metadata column: its most frequent labels get palette colours, the rest grey. */
export function colorsBy(column) {
  const counts = new Map();
  for (const label of column) counts.set(label, (counts.get(label) || 0) + 1);
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || naturalCompare(a[0], b[0])).slice(0, PALETTE.length);
  const colorOf = new Map(top.map(([label], i) => [label, PALETTE[i]]));
  return { colors: column.map((label) => colorOf.get(label) ?? '#b9bcc2'), groups: top.map(([label, n]) => [label, n, colorOf.get(label)]) };
}

export class ProjectorView {
  constructor(panel, ctx) {
    this.ctx = ctx;
    this.panel = panel;
    this.empty = panel.querySelector('.empty');
    this.seq = 0;
    this.source = h('select', { 'aria-label': 'Embeddings (run and tag)' });
    this.method = h('select', { 'aria-label': 'Projection' }, ...['pca', 'tsne', 'umap'].map((m) => h('option', { value: m }, m === 'pca' ? 'PCA' : m === 'tsne' ? 't-SNE' : 'UMAP')));
    this.dims = h('select', { 'aria-label': 'Dimensions' }, h('option', { value: '2' }, '2-D'), h('option', { value: '3' }, '3-D'));
    this.colorBy = h('select', { 'aria-label': 'Colour by metadata column' });
    this.searchColumn = h('select', { 'aria-label': 'Search column' });
    this.search = h('input', { type: 'search', placeholder: 'Find labels (regex)', 'aria-label': 'Find points by label' });
    this.status = h('span', { class: 'muted projector-status', 'aria-live': 'polite' });
    for (const control of [this.source, this.method, this.dims]) control.addEventListener('change', () => this.load());
    this.colorBy.addEventListener('change', () => this.draw());
    this.search.addEventListener('input', () => this.draw());
    this.searchColumn.addEventListener('change', () => this.draw());
    this.plot = h('div', { class: 'projector-plot', 'aria-label': 'projection' });
    this.legend = h('ul', { class: 'projector-legend' });
    this.side = h('aside', { class: 'projector-side card', 'aria-label': 'Neighbours' }, h('p', { class: 'muted' }, 'Click a point to list its nearest neighbours.'));
    this.body = h('div', { class: 'projector-body', hidden: true },
      h('div', { class: 'toolbar' }, this.source, this.method, this.dims, h('label', {}, 'Colour ', this.colorBy),
        h('label', {}, 'Find in ', this.searchColumn), this.search, this.status),
      h('div', { class: 'projector-layout' }, h('div', { class: 'card' }, this.plot, this.legend), this.side));
    panel.append(this.body);
  }

  update() {
    const byTag = this.ctx.state.tags.embeddings || {};
    const selected = this.ctx.selectedRuns();
    const sources = [];
    for (const tag of Object.keys(byTag).sort(naturalCompare)) for (const run of byTag[tag]) if (selected.has(run)) sources.push({ run, tag });
    const signature = JSON.stringify(sources);
    this.empty.textContent = sources.length ? '' : this.ctx.emptyText('embeddings', Object.keys(byTag).length);
    this.empty.hidden = sources.length > 0;
    this.body.hidden = !sources.length;
    if (signature === this.signature) return;
    this.signature = signature;
    const current = this.source.value;
    this.source.replaceChildren(...sources.map((s) => h('option', { value: JSON.stringify(s) }, `${s.tag} · ${s.run}`)));
    if (sources.some((s) => JSON.stringify(s) === current)) this.source.value = current;
    if (sources.length) this.load();
  }

  refresh() {
    return Promise.resolve(); // embeddings are written once: no live refresh
  }

  async load() {
    if (!this.source.value) return;
    const seq = ++this.seq;
    const { run, tag } = JSON.parse(this.source.value);
    const query = { run, tag, method: this.method.value, dims: Number(this.dims.value) };
    this.status.textContent = 'Projecting…';
    this.panel.dataset.state = 'loading';
    try {
      let answer = await getJSON('projection', query);
      while (answer.status === 'computing' && seq === this.seq) {
        this.status.textContent = `${this.method.selectedOptions[0].text} of ${answer.points.toLocaleString()} points, computing…`;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        answer = await getJSON('projection', query);
      }
      if (seq !== this.seq) return;
      this.spriteUrl = answer.sprite ? apiUrl('projection/sprite', { run, tag, index: answer.index }) : null;
      this.answer = { ...answer, coords: floats(answer.coordinates), rowsShown: answer.sample ? Array.from(new Int32Array(Uint8Array.from(atob(answer.sample), (c) => c.charCodeAt(0)).buffer)) : null };
      const header = answer.metadata_header.length ? answer.metadata_header : answer.metadata.map((_, i) => `label ${i + 1}`);
      for (const select of [this.colorBy, this.searchColumn]) {
        const before = select.value;
        select.replaceChildren(...header.map((name, i) => h('option', { value: String(i) }, name)));
        if (before && Number(before) < header.length) select.value = before;
      }
      const variance = answer.explained_variance ? ` · variance explained ${answer.explained_variance.map((v) => `${(100 * v).toFixed(1)}%`).join(', ')}` : '';
      this.status.textContent = `${answer.points.toLocaleString()} of ${answer.rows.toLocaleString()} points · ${answer.dimension} dimensions${variance}`;
      this.draw();
    } catch (error) {
      if (seq !== this.seq) return;
      this.status.textContent = error instanceof ApiError ? error.message : `Cannot project: ${error.message}`;
      this.panel.dataset.state = 'error';
    }
  }

  /** The metadata column `index` for the points shown (a sample for t-SNE and UMAP). */
  column(index) {
    const a = this.answer;
    const column = a.metadata[Number(index)] || [];
    return a.rowsShown ? a.rowsShown.map((r) => column[r] ?? '') : column;
  }

  draw() {
    const a = this.answer;
    if (!a) return;
    scheduleRender(this, () => {
      const n = a.points;
      const d = a.dims;
      const axis = (k) => Array.from({ length: n }, (_, i) => a.coords[i * d + k]);
      const labels = this.column(this.colorBy.value);
      const { colors, groups } = labels.length ? colorsBy(labels) : { colors: new Array(n).fill(PALETTE[0]), groups: [] };
      let pattern = null;
      try {
        pattern = this.search.value ? new RegExp(this.search.value, 'i') : null;
      } catch {
        pattern = null;
      }
      const searched = pattern ? this.column(this.searchColumn.value) : [];
      const hits = [];
      if (pattern) searched.forEach((label, i) => { if (pattern.test(label)) hits.push(i); });
      const sizes = new Array(n).fill(d === 3 ? 2.5 : 4);
      for (const i of hits) sizes[i] = d === 3 ? 6 : 9;
      const text = labels.map((l) => escPlotly(l));
      const trace = {
        type: d === 3 ? 'scatter3d' : 'scattergl', mode: 'markers', x: axis(0), y: axis(1), ...(d === 3 ? { z: axis(2) } : {}),
        text, hovertemplate: '%{text}<extra></extra>', marker: { color: colors, size: sizes, opacity: pattern ? 0.35 : 0.8 },
        meta: { kind: 'points' },
      };
      const data = [trace];
      if (pattern) {
        data.push({ type: trace.type, mode: 'markers', x: hits.map((i) => trace.x[i]), y: hits.map((i) => trace.y[i]),
          ...(d === 3 ? { z: hits.map((i) => trace.z[i]) } : {}), marker: { color: '#111', size: d === 3 ? 5 : 8, symbol: 'circle-open' },
          hoverinfo: 'skip', meta: { kind: 'hits' } });
      }
      if (this.neighbours) {
        const ns = this.neighbours.map((row) => (a.rowsShown ? a.rowsShown.indexOf(row) : row)).filter((i) => i >= 0);
        data.push({ type: trace.type, mode: 'markers', x: ns.map((i) => trace.x[i]), y: ns.map((i) => trace.y[i]),
          ...(d === 3 ? { z: ns.map((i) => trace.z[i]) } : {}), marker: { color: '#d62728', size: d === 3 ? 6 : 11, symbol: 'diamond-open' },
          hoverinfo: 'skip', meta: { kind: 'neighbours' } });
      }
      const layout = { height: 600, margin: { l: 40, r: 10, t: 10, b: 40 }, showlegend: false, uirevision: `${this.source.value}${this.method.value}${d}`,
        xaxis: { zeroline: false }, yaxis: { zeroline: false } };
      Plotly.react(this.plot, data, layout, CONFIG).then(() => {
        this.panel.dataset.state = 'ready';
        this.plot.dataset.points = String(n);
        this.plot.dataset.hits = String(hits.length);
      });
      if (!this.bound) {
        this.bound = true;
        this.plot.on('plotly_click', (event) => {
          const point = event.points.find((p) => p.data.meta?.kind === 'points');
          if (point) this.showNeighbours(point.pointNumber);
        });
      }
      this.legend.replaceChildren(...groups.slice(0, LEGEND_LABELS).map(([label, count, color]) =>
        h('li', {}, h('span', { class: 'swatch', style: { background: color } }), `${label} (${count.toLocaleString()})`)));
      if (pattern) this.legend.append(h('li', { class: 'muted' }, `${hits.length.toLocaleString()} match${hits.length === 1 ? '' : 'es'}`));
    });
  }

  /** Row `row`'s label image, cut from the sprite (null when the entry has none). */
  thumb(row) {
    const s = this.answer?.sprite;
    if (!s || !this.spriteUrl) return null;
    const scale = Math.max(1, Math.floor(THUMB_PX / Math.max(s.image_width, s.image_height)));
    const [x, y] = [(row % s.per_row) * s.image_width * scale, Math.floor(row / s.per_row) * s.image_height * scale];
    return h('span', { class: 'projector-thumb', role: 'img', 'aria-label': `label image of row ${row}`, dataset: { row: String(row) },
      style: { display: 'inline-block', verticalAlign: 'middle', marginRight: '6px', imageRendering: 'pixelated',
        width: `${s.image_width * scale}px`, height: `${s.image_height * scale}px`, backgroundImage: `url("${this.spriteUrl}")`,
        backgroundSize: `${s.width * scale}px ${s.height * scale}px`, backgroundPosition: `-${x}px -${y}px` } });
  }

  async showNeighbours(index) {
    const a = this.answer;
    const row = a.rowsShown ? a.rowsShown[index] : index;
    const { run, tag } = JSON.parse(this.source.value);
    try {
      const answer = await getJSON('neighbors', { run, tag, index: a.index, point: row, k: 10 });
      this.neighbours = answer.neighbors.map((n) => n.row);
      const label = (labels) => labels.join(' · ') || '(no label)';
      this.side.replaceChildren(
        h('h3', {}, `Nearest to row ${row}`), h('p', { class: 'muted' }, this.thumb(row), label(a.metadata.map((c) => c[row] ?? ''))),
        h('ol', { class: 'neighbours' }, ...answer.neighbors.map((n) => h('li', {}, this.thumb(n.row), `${label(n.labels)} `, h('span', { class: 'muted' }, `cosine distance ${n.distance.toFixed(4)}`)))),
        button('Clear', () => { this.neighbours = null; this.side.replaceChildren(); this.draw(); }));
      this.draw();
    } catch (error) {
      this.side.replaceChildren(h('p', { class: 'card-error' }, error.message));
    }
  }
}
