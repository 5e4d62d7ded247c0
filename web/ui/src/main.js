// The graph-browser@18 page. It talks only to its own viewer (same origin, its token in a header) and
// never changes project data: every interaction below is a read or a client-side view change.
import cytoscape from 'cytoscape';
import dagre from 'cytoscape-dagre';

cytoscape.use(dagre);

const $ = (id) => document.getElementById(id);

// el builds an element; text goes through textContent only, so project content is never
// parsed as markup.
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else if (k === 'on') for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

// The semantic cards, from the relation categories the viewer reports.
const CARDS = [
  ['structure', 'Structure'], ['implementation', 'Behavior'], ['dependency', 'Dependency'],
  ['execution', 'Execution'], ['data', 'Data'], ['evidence', 'Evidence'], ['context', 'Context'],
  ['unclassified', 'Related'],
];
const LINE = { structure: 'solid', implementation: 'solid', dependency: 'dashed', execution: 'solid', data: 'dotted', evidence: 'dashed', context: 'dotted', unclassified: 'solid', omitted: 'dashed' };
const ARROW = { structure: 'diamond', implementation: 'triangle-backcurve', dependency: 'vee', execution: 'triangle', data: 'circle', evidence: 'tee', context: 'square', unclassified: 'triangle', omitted: 'triangle' };
const SYMBOL = { diamond: '◆', 'triangle-backcurve': '➤', vee: '›', triangle: '▶', circle: '●', tee: '⊣', square: '■' };
const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#ff7f0e', '#393b79', '#637939', '#843c39', '#7b4173', '#3182bd', '#31a354', '#756bb1'];
const FAMILY_PALETTE = ['#dbe8fb', '#fde2cf', '#d8f3dc', '#eadcf8', '#fff1b8', '#d0f0f5', '#f8d7e3', '#e6e6e6'];

function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}
const relationColor = (rel) => rel === 'omitted' ? '#868e96' : PALETTE[hash(rel) % PALETTE.length];
const familyColor = (fam) => FAMILY_PALETTE[hash(fam || '') % FAMILY_PALETTE.length];

// leaf is the readable last part of a qualified ID (the title when there is one).
function leaf(n) {
  if (n.title) return n.title;
  const id = n.id || '';
  const cut = Math.max(id.lastIndexOf('/'), id.lastIndexOf(':'));
  return cut >= 0 ? id.slice(cut + 1) : id;
}

const state = {
  view: 'nodes', focus: null, selected: null,
  data: null,            // the current view's answer
  hidden: new Set(),     // hidden node IDs (Logic: step IDs), client-side only
  overview: null, stale: false,
  clusters: null,        // the overview's clusters by ID, once drawn
};

// api reads one endpoint; a stale snapshot turns the page into its stale state.
function api(path, params = {}) {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '' && v !== undefined && v !== null));
  return answer(boot.get(path + (q.toString() ? '?' + q : '')));
}

// answer reads one API response: its JSON, or the error it carries.
async function answer(pending) {
  const resp = await pending; // boot.get's {status, ok, statusText, body}
  const body = resp.body;
  if (resp.status === 409 && body.state === 'stale') {
    showStale(body);
    throw new Error('stale');
  }
  if (resp.status === 401) throw new Error('No viewer session. Open the exact URL docforge_visualize (or docforge view) printed, with its #token part.');
  if (!resp.ok) {
    const err = body.error || {};
    throw new Error((err.message || resp.statusText) + (err.remediation ? ' — ' + err.remediation : ''));
  }
  return body;
}

function showBanner(text, cls) {
  const b = $('banner');
  b.textContent = text;
  b.className = cls || '';
  b.hidden = false;
}

function showStale(body) {
  state.stale = true;
  document.body.dataset.state = 'stale';
  document.body.dataset.ready = 'stale';
  showBanner(`This view is out of date: ${body.message}. To see the current project, ${body.remediation}.`, 'stale');
}

const boot = window.docforgeBoot; // boot.js: the session and first requests, already on their way

// ---- the graph -----------------------------------------------------------------------------

const cy = cytoscape({
  container: $('graph'),
  autoungrabify: true, // dragging pans the view; the layout stays as computed
  boxSelectionEnabled: false,
  minZoom: 0.05, maxZoom: 4,
  style: [
    { selector: 'node', style: {
      'font-size': 11, 'text-valign': 'center', 'text-halign': 'center', 'text-wrap': 'wrap', 'text-max-width': 180,
      shape: 'round-rectangle', width: 'data(w)', height: 'data(h)', 'background-color': 'data(fill)', 'border-width': 1, 'border-color': '#8a94a6', color: '#1d2330' } },
    // Labels only where they can be read (see showLabels): measuring 300 labels that would be
    // drawn 3 pixels high is most of a large view's first frame.
    { selector: 'node.labelled, node.focus, node.selected', style: { label: 'data(label)' } },
    { selector: 'node.focus', style: { 'border-width': 3, 'border-color': '#d9480f', 'font-weight': 'bold' } },
    { selector: 'node.branch', style: { 'border-style': 'dashed' } },
    { selector: 'node.step', style: { shape: 'round-rectangle', 'font-family': 'monospace', 'font-size': 10 } },
    { selector: 'edge', style: {
      width: 1.6, 'curve-style': 'bezier', 'line-color': '#868e96', 'target-arrow-color': '#868e96', 'target-arrow-shape': 'triangle', 'arrow-scale': 1.1 } },
    { selector: 'edge.omitted', style: { label: 'omitted', 'font-size': 9, color: '#868e96', 'text-background-color': '#fff', 'text-background-opacity': 1 } },
    { selector: '.muted', style: { opacity: 0.18 } },
    { selector: 'node.selected', style: { 'border-width': 3, 'border-color': '#1f5fbf', 'background-color': '#fff' } },
    { selector: 'edge.lit', style: { width: 3 } },
    { selector: 'node.cluster', style: { label: 'data(label)', shape: 'round-rectangle', 'font-size': 13, 'text-max-width': 200, 'min-zoomed-font-size': 0 } },
    { selector: 'edge.cluster-link', style: { width: 'data(width)', 'line-color': '#adb5bd', 'target-arrow-color': '#adb5bd', opacity: 0.8 } },
    { selector: 'edge.cluster-link.lit', style: { 'line-color': '#1f5fbf', 'target-arrow-color': '#1f5fbf' } },
  ],
});

// visible computes what the current view shows once hidden nodes are taken out: Nodes drops
// them; Flow and Web also drop what no longer leads to the focus (descendants that still do
// stay, and so do the focus's own member branches); Logic bridges a hidden step's neighbours
// with an explicit omitted path.
function visible() {
  const d = state.data;
  if (!d) return { nodes: [], edges: [] };
  if (state.view === 'logic') return visibleLogic(d);
  let nodes = d.nodes.filter((n) => n.id === state.focus || !state.hidden.has(n.id));
  const ids = new Set(nodes.map((n) => n.id));
  let edges = d.edges.filter((e) => ids.has(e.from) && ids.has(e.to));
  if (state.view === 'flow' || state.view === 'web') {
    const reach = new Set([state.focus]);
    const into = new Map();
    for (const e of edges) {
      if (!into.has(e.to)) into.set(e.to, []);
      into.get(e.to).push(e.from);
    }
    const queue = [state.focus];
    while (queue.length) {
      for (const f of into.get(queue.shift()) || []) if (!reach.has(f)) { reach.add(f); queue.push(f); }
    }
    nodes = nodes.filter((n) => reach.has(n.id) || (n.branch && edges.some((e) => e.from === state.focus && e.to === n.id)));
    const kept = new Set(nodes.map((n) => n.id));
    edges = edges.filter((e) => kept.has(e.from) && kept.has(e.to));
  }
  return { nodes, edges };
}

function visibleLogic(d) {
  let edges = d.edges.map((e) => ({ from: String(e.from), to: String(e.to), relation: e.kind || 'next', category: 'execution' }));
  for (const h of state.hidden) {
    const preds = edges.filter((e) => e.to === h && e.from !== h).map((e) => e.from);
    const succs = edges.filter((e) => e.from === h && e.to !== h).map((e) => e.to);
    edges = edges.filter((e) => e.from !== h && e.to !== h);
    for (const p of preds) for (const s of succs) {
      if (!edges.some((e) => e.from === p && e.to === s && e.relation === 'omitted')) edges.push({ from: p, to: s, relation: 'omitted', category: 'omitted' });
    }
  }
  const nodes = d.steps.filter((s) => !state.hidden.has(String(s.id))).map((s) => ({
    id: String(s.id), title: s.label ? `${s.kind}: ${s.label}` : s.kind, kind: s.kind, family: 'logic', line: s.line, step: true,
  }));
  return { nodes, edges };
}

// frame fits the drawing into the canvas. The box comes from node positions and the sizes
// labelBox gave them: edges stay between their nodes, and Cytoscape's own fit would measure
// every label and edge curve first, which costs a 300-node view a quarter of a second.
function frame() {
  let x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity;
  cy.nodes().forEach((n) => {
    const p = n.position(), w = n.data('w') / 2, h = n.data('h') / 2;
    x1 = Math.min(x1, p.x - w); x2 = Math.max(x2, p.x + w); y1 = Math.min(y1, p.y - h); y2 = Math.max(y2, p.y + h);
  });
  if (x1 === Infinity) return;
  const pad = 30;
  const free = cy.width() - $('key').offsetWidth - 8; // the key sits at the right: keep clear of it
  const zoom = Math.min(cy.maxZoom(), Math.max(cy.minZoom(), Math.min((free - 2 * pad) / (x2 - x1 || 1), (cy.height() - 2 * pad) / (y2 - y1 || 1))));
  cy.viewport({ zoom, pan: { x: (free - zoom * (x1 + x2)) / 2, y: (cy.height() - zoom * (y1 + y2)) / 2 } });
}

// rings places the Nodes view: the focus in the middle, each further level on a ring around it,
// wide enough for its nodes side by side. Computed here from the known node sizes, it costs one
// pass instead of a layout that measures every node.
function rings(nodes) {
  const byDepth = new Map();
  for (const n of nodes) {
    const d = n.id === state.focus ? 0 : Math.max(1, n.depth || 1);
    if (!byDepth.has(d)) byDepth.set(d, []);
    byDepth.get(d).push(n);
  }
  const pos = {};
  let radius = 0;
  for (const d of [...byDepth.keys()].sort((a, b) => a - b)) {
    const ring = byDepth.get(d);
    if (d === 0) { for (const n of ring) pos[n.id] = { x: 0, y: 0 }; continue; }
    const boxes = ring.map((n) => labelBox(leaf(n)));
    const arc = boxes.reduce((sum, b) => sum + Math.max(b.w, b.h * 2) + 24, 0);
    radius = Math.max(radius + 110, arc / (2 * Math.PI));
    let angle = -Math.PI / 2;
    ring.forEach((n, i) => {
      pos[n.id] = { x: radius * Math.cos(angle), y: radius * Math.sin(angle) };
      angle += 2 * Math.PI * (Math.max(boxes[i].w, boxes[i].h * 2) + 24) / arc;
    });
  }
  return pos;
}

// labelBox sizes a node for its label, wrapped at about 24 characters a line, without asking
// the canvas to measure text (which costs the layout a measurement per node).
function labelBox(label) {
  const lines = [];
  for (const part of label.split('\n')) {
    let line = '';
    for (const word of part.split(' ')) {
      if (line && line.length + word.length + 1 > 24) { lines.push(line); line = word; } else line = line ? line + ' ' + word : word;
    }
    lines.push(line);
  }
  const widest = Math.max(...lines.map((l) => l.length));
  return { label: lines.join('\n'), w: Math.min(170, widest * 6.4) + 16, h: lines.length * 13 + 12 };
}

// A suspect relation (its target changed since a person confirmed it) is drawn in warning
// orange with a long dash and labelled, whatever its relation's own colour.
const SUSPECT_COLOR = '#e8590c';
const SUSPECT_STYLE = {
  'line-color': SUSPECT_COLOR, 'target-arrow-color': SUSPECT_COLOR, 'line-style': 'dashed', 'line-dash-pattern': [10, 4], width: 2.6,
  label: 'suspect', 'font-size': 9, color: SUSPECT_COLOR, 'text-background-color': '#fff', 'text-background-opacity': 1,
};

// Relation styles are classes, one rule per relation and per category, added as relations
// first appear: a rule shared by many edges is resolved once, where a data() mapping is
// resolved per edge.
const relationClass = new Map();
function edgeClasses(e) {
  if (!relationClass.has(e.relation)) {
    const st = styleOf(e);
    const cls = 'r' + relationClass.size;
    relationClass.set(e.relation, cls);
    // The suspect rule is appended again after each relation rule: the last matching rule wins.
    cy.style().selector('edge.' + cls).style({ 'line-color': st.color, 'target-arrow-color': st.color, 'line-style': st.line, 'target-arrow-shape': st.arrow })
      .selector('edge.suspect').style(SUSPECT_STYLE).update();
  }
  return relationClass.get(e.relation) + (e.relation === 'omitted' ? ' omitted' : '') + (e.review === 'suspect' ? ' suspect' : '');
}

// showLabels labels every node once a label would be at least 6 pixels high.
function showLabels() {
  cy.nodes().toggleClass('labelled', cy.zoom() * 11 >= 6);
}

function styleOf(e) {
  const cat = e.relation === 'omitted' ? 'omitted' : (e.category || 'unclassified');
  return { color: relationColor(e.relation), line: LINE[cat] || 'solid', arrow: ARROW[cat] || 'triangle' };
}

function draw(fit = true) {
  const { nodes, edges } = visible();
  cy.batch(() => {
    cy.elements().remove();
    cy.add(nodes.map((n) => ({
      group: 'nodes',
      data: { id: n.id, ...labelBox(n.step ? `${n.title}\nline ${n.line}` : leaf(n)), fill: n.step ? '#f1f3f5' : familyColor(n.family), depth: n.depth || 0 },
      classes: [n.id === state.focus ? 'focus' : '', n.branch ? 'branch' : '', n.step ? 'step' : ''].join(' '),
    })));
    cy.add(edges.map((e, i) => ({
      group: 'edges',
      data: { id: 'e' + i, source: e.from, target: e.to, relation: e.relation, review: e.review || '' },
      classes: edgeClasses(e),
    })));
  });
  performance.mark('docforge:added');
  const layout = state.view === 'nodes'
    ? { name: 'preset', positions: rings(nodes) }
    : { name: 'dagre', rankDir: 'LR', nodeSep: 14, rankSep: 60 };
  cy.layout({ ...layout, fit: false, animate: false }).run();
  performance.mark('docforge:laid-out');
  drawKey(edges);
  if (fit) frame();
  showLabels();
  drawHidden();
  select(state.selected && cy.getElementById(state.selected).nonempty() ? state.selected : null);
  document.body.dataset.nodes = String(nodes.length);
}

// swatch is a key entry's sample line.
function swatch(color, width, dash) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('width', '36'); svg.setAttribute('height', '10');
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'line');
  line.setAttribute('x1', '0'); line.setAttribute('y1', '5'); line.setAttribute('x2', '36'); line.setAttribute('y2', '5');
  line.setAttribute('stroke', color); line.setAttribute('stroke-width', width);
  if (dash) line.setAttribute('stroke-dasharray', dash);
  svg.append(line);
  return svg;
}

// drawKey lists exactly the relations the view now shows.
function drawKey(edges) {
  const list = $('key-list');
  list.replaceChildren();
  const seen = new Map();
  for (const e of edges) if (!seen.has(e.relation)) seen.set(e.relation, e);
  if (!seen.size) { list.append(el('li', { class: 'muted', text: 'no relations in view' })); return; }
  for (const [rel, e] of [...seen].sort(([a], [b]) => a.localeCompare(b))) {
    const st = styleOf(e);
    const svg = swatch(st.color, '2', { dashed: '6 3', dotted: '2 3' }[st.line]);
    list.append(el('li', { 'data-relation': rel }, svg, el('span', { text: `${SYMBOL[st.arrow] || '▶'} ${rel}`, title: `${e.category || 'related'}: ${st.line} line, ${st.arrow} arrow` })));
  }
  const suspect = edges.filter((e) => e.review === 'suspect').length;
  if (suspect) {
    list.append(el('li', { 'data-review': 'suspect', class: 'suspect' }, swatch(SUSPECT_COLOR, '2.6', '10 4'), el('span', {
      text: `suspect (${suspect})`, title: 'the target changed since a person last confirmed the relation: docforge validate says what changed; docforge review re-confirms' })));
  }
}

// select highlights a node, its incident edges and direct neighbours, mutes the rest, and
// opens its descriptor card.
function select(id) {
  const had = state.selected;
  state.selected = id;
  if (had || id) cy.elements().removeClass('muted lit selected');
  if (!id) { $('card').hidden = true; document.body.dataset.selected = ''; return; }
  const n = cy.getElementById(id);
  if (n.empty()) return;
  const near = n.closedNeighborhood();
  cy.elements().not(near).addClass('muted');
  n.addClass('selected');
  n.connectedEdges().addClass('lit');
  document.body.dataset.selected = id;
  showCard(id);
}

function nodeData(id) {
  if (state.view === 'logic') return visibleLogic(state.data).nodes.find((n) => n.id === id);
  return state.data && state.data.nodes.find((n) => n.id === id);
}

function pill(field, value) {
  return el('button', { type: 'button', class: 'pill', 'data-field': field, title: `List every node with ${field} = ${value}`, text: `${field}: ${value}`,
    on: { click: () => listCategory(field, value) } });
}

function pills(n) {
  const box = el('div', { class: 'pills' });
  for (const f of ['family', 'kind', 'status', 'authority', 'language']) if (n[f]) box.append(pill(f, n[f]));
  for (const t of n.tags || []) box.append(pill('tag', t));
  return box;
}

function showCard(id, fetched) {
  const n = fetched || nodeData(id);
  if (!n) return;
  const card = $('card');
  const actions = el('div', { class: 'actions' });
  if (n.step) {
    actions.append(el('button', { type: 'button', text: 'Hide step', on: { click: () => hide(id) } }));
  } else {
    if (id !== state.focus) actions.append(el('button', { type: 'button', id: 'explore', text: 'Explore neighborhood', on: { click: () => explore(id) } }));
    actions.append(el('button', { type: 'button', id: 'inspect', text: 'Inspect', on: { click: () => inspect(id) } }));
    if (n.source_path) actions.append(el('button', { type: 'button', text: 'Source', on: { click: () => openSource(id) } }));
    if (id !== state.focus && !fetched) actions.append(el('button', { type: 'button', id: 'hide', text: 'Hide', on: { click: () => hide(id) } }));
  }
  card.replaceChildren(
    el('h3', { text: leaf(n), title: n.id }),
    el('div', { class: 'id', text: n.step ? `step ${n.id} · line ${n.line}` : n.id }),
    el('div', { class: 'kind', text: n.kind }),
    n.step ? null : pills(n),
    actions,
  );
  card.hidden = false;
}

function hide(id) {
  state.hidden.add(id);
  if (state.selected === id) state.selected = null;
  draw(false);
  drawSemantic();
}

function drawHidden() {
  const list = $('hidden-list');
  list.replaceChildren();
  for (const id of state.hidden) {
    const n = state.view === 'logic' ? state.data.steps.find((s) => String(s.id) === id) : state.data.nodes.find((x) => x.id === id);
    const label = state.view === 'logic' ? `step ${id}${n ? ' (' + n.kind + ')' : ''}` : (n ? leaf(n) : id);
    list.append(el('li', {}, el('button', { type: 'button', class: 'member', title: id, text: `Restore ${label}`,
      on: { click: () => { state.hidden.delete(id); draw(false); drawSemantic(); } } })));
  }
  $('hidden-section').hidden = state.hidden.size === 0;
}

// ---- panels --------------------------------------------------------------------------------

function listNodes(title, nodes, truncated) {
  $('results-title').textContent = title + (truncated ? ' (more exist: narrow it)' : '');
  const list = $('results');
  list.replaceChildren();
  if (!nodes.length) list.append(el('li', { class: 'muted', text: 'nothing matched' }));
  for (const n of nodes) {
    list.append(el('li', {}, el('button', { type: 'button', title: n.id, 'data-id': n.id,
      on: { click: () => pick(n.id) } }, el('div', { text: leaf(n) }), el('div', { class: 'kind', text: `${n.kind} · ${n.id}` }))));
  }
}

// pick shows a listed node: selected in place when the graph has it; otherwise its card, from
// which Explore neighborhood makes it the root. The first pick sets the root.
async function pick(id) {
  if (!state.focus) return explore(id);
  if (cy.getElementById(id).nonempty()) { select(id); cy.center(cy.getElementById(id)); return; }
  try {
    const n = await api('/api/node', { id });
    select(null);
    showCard(id, n);
  } catch (e) { report(e); }
}

async function listCategory(field, value) {
  try {
    const r = await api('/api/filter', { [field]: value, limit: 200 });
    listNodes(`${field} = ${value}: ${r.nodes.length}`, r.nodes, r.truncated);
  } catch (e) { report(e); }
}

async function search(q) {
  try {
    const r = await api('/api/search', { q, limit: 50 });
    listNodes(`“${q}”: ${r.hits.length} found`, r.hits.map((h) => ({ id: h.id, title: h.title, kind: h.kind })), r.truncated);
    return r.hits;
  } catch (e) { report(e); return []; }
}

// drawSemantic fills the right panel: the focus, then its relation-derived contributors by
// category, each a navigation list.
function drawSemantic() {
  const box = $('semantic');
  box.replaceChildren();
  const info = $('focus-info');
  if (!state.focus || !state.data) { info.hidden = false; return; }
  info.hidden = true;
  if (state.view === 'logic') {
    box.append(el('section', { class: 'semantic-card focus-card' }, el('h3', { text: 'Logic' }),
      el('div', { text: state.data.title || state.focus, title: state.focus }),
      el('div', { class: 'kind', text: `${state.data.steps.length} steps, ${state.data.edges.length} control edges${state.data.truncated ? ' (truncated)' : ''}` })));
    return;
  }
  const { nodes, edges } = visible();
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const focus = byId.get(state.focus);
  box.append(el('section', { class: 'semantic-card focus-card', 'data-card': 'focus' }, el('h3', { text: 'Focus' }),
    el('div', { text: focus ? leaf(focus) : state.focus, title: state.focus }), el('div', { class: 'kind', text: focus ? focus.kind : '' })));
  const groups = new Map();
  for (const e of edges) {
    const other = e.from === state.focus ? e.to : e.to === state.focus ? e.from : null;
    if (!other || other === state.focus) continue;
    const cat = CARDS.some(([c]) => c === e.category) ? e.category : 'unclassified';
    if (!groups.has(cat)) groups.set(cat, new Map());
    groups.get(cat).set(other, e.review === 'suspect' ? e.relation + ' · suspect' : e.relation);
  }
  for (const [cat, label] of CARDS) {
    const members = groups.get(cat);
    if (!members) continue;
    const section = el('section', { class: 'semantic-card', 'data-card': cat }, el('h3', {}, el('span', { text: label }), el('span', { class: 'kind', text: String(members.size) })));
    for (const [id, rel] of members) {
      const n = byId.get(id) || { id };
      section.append(el('button', { type: 'button', class: 'member', title: id, 'data-id': id, on: { click: () => { select(id); cy.center(cy.getElementById(id)); } } },
        el('div', { text: leaf(n) }), el('div', { class: 'kind', text: `${n.kind || ''} · ${rel}` })));
    }
    box.append(section);
  }
  const d = state.data;
  if (d.truncated) box.append(el('p', { class: 'muted', text: `Bounded: stopped by the ${d.truncated_by === 'work_budget' ? 'work budget' : 'node limit'}.` }));
}

// ---- the project at a glance ----------------------------------------------------------------

// drawOverview is the first screen of a viewer opened on no node: the project's clusters (a
// family of documents, a folder of code) sized by their nodes, and the relations between them
// counted. A click on a cluster lists its most connected nodes; a pick among them explores it.
async function drawOverview() {
  let m;
  try {
    m = await answer(boot.get('/api/clusters'));
  } catch (e) { report(e); return; }
  state.view = 'overview';
  setViewButtons();
  state.clusters = new Map(m.clusters.map((c) => [c.id, c]));
  $('focus-info').textContent = 'The project at a glance: click a cluster to list its most connected nodes, then pick one to explore its neighborhood.';
  const biggest = Math.max(1, ...m.clusters.map((c) => c.nodes));
  cy.batch(() => {
    cy.elements().remove();
    cy.add(m.clusters.map((c) => {
      const side = 40 + 140 * Math.sqrt(c.nodes / biggest);
      return { group: 'nodes', classes: 'cluster labelled', data: {
        id: c.id, label: `${c.label}\n${c.nodes} nodes`, w: side, h: side,
        fill: c.kind === 'code' ? '#e3ecf7' : familyColor(c.label) } };
    }));
    const most = Math.max(1, ...m.links.map((l) => l.count));
    cy.add(m.links.map((l, i) => ({ group: 'edges', classes: 'cluster-link', data: {
      id: 'c' + i, source: l.from, target: l.to, relation: l.relation, count: l.count,
      width: 1 + 7 * Math.log1p(l.count) / Math.log1p(most) } })));
  });
  cy.layout({ name: 'cose', animate: false, fit: false, randomize: false, nodeRepulsion: () => 60000, idealEdgeLength: () => 140,
    nodeDimensionsIncludeLabels: false, numIter: 600 }).run();
  frame();
  const list = $('results');
  $('results-title').textContent = `Overview: ${m.clusters.length} clusters${m.truncated ? ' (the smallest merged)' : ''}`;
  list.replaceChildren();
  for (const c of m.clusters) {
    list.append(el('li', {}, el('button', { type: 'button', 'data-cluster': c.id, on: { click: () => openCluster(c.id) } },
      el('div', { text: c.label }), el('div', { class: 'kind', text: `${c.kind} · ${c.nodes} nodes` }))));
  }
  $('key-list').replaceChildren(el('li', { class: 'muted', text: 'boxes: families of documents and folders of code, sized by their nodes; lines: relations between them, thicker for more' }));
  document.body.dataset.view = 'overview';
  document.body.dataset.clusters = String(m.clusters.length);
  document.body.dataset.nodes = String(m.clusters.length);
}

// openCluster lists a cluster's most connected nodes, to explore one of them.
function openCluster(id) {
  const c = state.clusters && state.clusters.get(id);
  if (!c) return;
  cy.elements().removeClass('muted lit selected');
  const n = cy.getElementById(id);
  cy.elements().not(n.closedNeighborhood()).addClass('muted');
  n.addClass('selected');
  n.connectedEdges().addClass('lit');
  listNodes(`${c.label}: ${c.nodes} nodes, the most connected first`, c.top, c.top.length < c.nodes);
  document.body.dataset.selected = id;
}

// ---- views ---------------------------------------------------------------------------------

// fetchView asks for the current view of the focus.
function fetchView() {
  return answer(boot.get(boot.viewURL(state.view, state.focus, boot.depth)));
}

// load draws the current view of the focus, from an answer already on its way if given.
async function load(pending) {
  if (!state.focus) return;
  try {
    state.data = await (pending || fetchView());
  } catch (e) { report(e); state.data = null; }
  performance.mark('docforge:data');
  draw(true);
  performance.mark('docforge:drawn');
  drawSemantic();
  performance.mark('docforge:panels');
  requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('docforge:painted')));
  document.body.dataset.view = state.view;
  document.body.dataset.focus = state.focus;
  document.body.dataset.ready = 'true';
}

async function explore(id) {
  if (state.view === 'overview') state.view = 'nodes';
  state.focus = id;
  state.hidden.clear();
  state.selected = null;
  if (state.view === 'logic') {
    const n = await api('/api/node', { id }).catch(() => null);
    if (n && !/func|method|constructor/.test(n.kind)) state.view = 'nodes';
  }
  setViewButtons();
  await load();
}

function setViewButtons() {
  for (const b of document.querySelectorAll('#views button')) b.setAttribute('aria-pressed', String(b.dataset.view === state.view));
}

function report(e) {
  if (e.message !== 'stale') showBanner(e.message);
}

async function inspect(id) {
  try {
    const n = await api('/api/node', { id });
    $('inspector-title').textContent = leaf(n);
    const dl = el('dl');
    for (const [k, v] of [['ID', n.id], ['Kind', n.kind], ['Family', n.family], ['Status', n.status], ['Authority', n.authority], ['Language', n.language],
      ['Tags', (n.tags || []).join(', ')], ['Capabilities', (n.capabilities || []).join(', ')], ['Source', n.source_path + (n.line ? ':' + n.line : '')],
      ['Anchor', n.anchor], ['Content hash', n.content_hash]]) {
      if (v) dl.append(el('dt', { text: k }), el('dd', { text: v }));
    }
    const rels = (title, links) => {
      const s = el('section', {}, el('h3', { text: `${title} (${links.length})` }));
      for (const l of links) s.append(el('button', { type: 'button', class: 'member', title: l.node_id, on: { click: () => { $('inspector').close(); pick(l.node_id); } } },
        el('div', { text: `${l.relation} → ${l.title || l.node_id}` }), el('div', { class: 'kind', text: `${l.kind} · ${l.node_id}` })));
      return s;
    };
    $('inspector-body').replaceChildren(dl, pills(n),
      n.source_path ? el('div', { class: 'actions' }, el('button', { type: 'button', text: 'Open source', on: { click: () => openSource(id) } })) : null,
      rels('Outgoing', n.outgoing || []), rels('Incoming' + (n.incoming_truncated ? ', more exist' : ''), n.incoming || []),
      el('h3', { text: 'Body' }), el('pre', { text: n.body || '(empty)' }));
    $('inspector').showModal();
  } catch (e) { report(e); }
}

async function openSource(id) {
  try {
    const s = await api('/api/source', { id });
    $('source-title').textContent = s.source_path + (s.anchor ? '#' + s.anchor : '') + (s.truncated ? ' (first 256 KB)' : '');
    const pre = $('source-text');
    pre.replaceChildren();
    let target = null;
    s.text.split('\n').forEach((line, i) => {
      const row = el('span', { class: 'line' + (i + 1 === s.line ? ' anchor' : ''), id: 'L' + (i + 1) }, el('span', { class: 'ln', text: String(i + 1) }), document.createTextNode(line + '\n'));
      if (i + 1 === s.line) target = row;
      pre.append(row);
    });
    $('source').showModal();
    if (target) target.scrollIntoView({ block: 'center' });
  } catch (e) { report(e); }
}

// ---- wiring --------------------------------------------------------------------------------

cy.on('tap', 'node', (ev) => (state.view === 'overview' ? openCluster(ev.target.id()) : select(ev.target.id())));
let labelPending = false;
cy.on('zoom', () => {
  if (labelPending) return;
  labelPending = true;
  requestAnimationFrame(() => { labelPending = false; showLabels(); });
});
cy.on('tap', (ev) => { if (ev.target === cy) select(null); });
cy.on('cxttap', 'node', (ev) => { if (!ev.target.hasClass('step')) inspect(ev.target.id()); });
$('graph').addEventListener('contextmenu', (ev) => ev.preventDefault());

const zoomBy = (f) => cy.zoom({ level: cy.zoom() * f, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
$('zoom-in').addEventListener('click', () => zoomBy(1.25));
$('zoom-out').addEventListener('click', () => zoomBy(0.8));
$('zoom-fit').addEventListener('click', frame);
$('zoom-reset').addEventListener('click', () => { state.hidden.clear(); state.selected = null; draw(true); drawSemantic(); });
document.addEventListener('keydown', (ev) => {
  const typing = ['INPUT', 'SELECT', 'TEXTAREA'].includes(document.activeElement.tagName) || document.querySelector('dialog[open]');
  if (typing) return;
  if (ev.key === ' ' && state.selected) { ev.preventDefault(); cy.center(cy.getElementById(state.selected)); }
  const pan = { ArrowLeft: [40, 0], ArrowRight: [-40, 0], ArrowUp: [0, 40], ArrowDown: [0, -40] }[ev.key];
  if (pan && document.activeElement === $('graph')) { ev.preventDefault(); cy.panBy({ x: pan[0], y: pan[1] }); }
});
for (const b of document.querySelectorAll('#views button')) {
  b.addEventListener('click', () => {
    if (!state.focus) { showBanner('Choose a focus node first: search, or pick one from the list.'); return; }
    state.view = b.dataset.view;
    state.hidden.clear();
    state.selected = null;
    setViewButtons();
    load();
  });
}
$('search').addEventListener('submit', (ev) => { ev.preventDefault(); const q = $('q').value.trim(); if (q) search(q); });
$('filter-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const params = Object.fromEntries([...new FormData(ev.target)].filter(([, v]) => v));
  try {
    const r = await api('/api/filter', { ...params, limit: 200 });
    listNodes(`Filter: ${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(', ') || 'everything'}: ${r.nodes.length}`, r.nodes, r.truncated);
  } catch (e) { report(e); }
});
$('inspector-close').addEventListener('click', () => $('inspector').close());
$('source-close').addEventListener('click', () => $('source').close());
$('restore-all').addEventListener('click', () => { state.hidden.clear(); draw(false); drawSemantic(); });

async function main() {
  const params = new URLSearchParams(location.search);
  try {
    await boot.session;
  } catch (e) { showBanner(e.message, 'stale'); document.body.dataset.ready = 'error'; return; }
  performance.mark('docforge:session');
  state.view = boot.view;
  let pending = null;
  if (boot.first) {
    state.focus = boot.focus;
    pending = answer(boot.first);
    pending.catch(() => {}); // reported when awaited
  }
  try {
    state.overview = await answer(boot.overview);
  } catch (e) {
    if (e.message !== 'stale') { showBanner(e.message, 'stale'); document.body.dataset.ready = 'error'; }
    return;
  }
  const o = state.overview;
  $('project').textContent = o.project.name || o.project.id;
  $('snapshot').textContent = `generation ${o.generation} · ${o.node_count} nodes · ${o.edge_count} relations`;
  const fam = document.querySelector('#filter-form select[name=family]');
  for (const f of Object.keys(o.families).sort()) fam.append(el('option', { value: f, text: f }));
  setViewButtons();
  // The overview lists the families; each opens its exact result set.
  const list = $('results');
  $('results-title').textContent = 'Overview: families';
  list.replaceChildren();
  for (const [f, kinds] of Object.entries(o.families).sort()) {
    list.append(el('li', {}, el('button', { type: 'button', on: { click: () => listCategory('family', f) } }, el('div', { text: f }), el('div', { class: 'kind', text: kinds.join(', ') }))));
  }
  if (pending) { await load(pending); return; }
  if (params.get('focus')) { await explore(params.get('focus')); return; }
  if (params.get('q')) {
    $('q').value = params.get('q');
    const hits = await search(params.get('q'));
    if (hits.length) { await explore(hits[0].id); return; }
  }
  await drawOverview();
  document.body.dataset.ready = 'true';
}

main();

// A read-only handle for the browser tests: what the graph shows, never a way to change it.
window.docforgeView = Object.freeze({
  clusters: () => cy.nodes('.cluster').map((n) => ({ id: n.id(), w: n.data('w'), x: n.renderedPosition().x, y: n.renderedPosition().y })),
  visibleNodes: () => cy.nodes().map((n) => n.id()),
  visibleEdges: () => cy.edges().map((e) => [e.source().id(), e.target().id(), e.data('relation')]),
  suspectEdges: () => cy.edges('.suspect').map((e) => ({ from: e.source().id(), to: e.target().id(), relation: e.data('relation'),
    color: e.style('line-color'), line: e.style('line-style'), label: e.style('label') })),
  zoom: () => cy.zoom(),
  pan: () => ({ ...cy.pan() }),
  renderedPosition: (id) => { const n = cy.getElementById(id); return n.nonempty() ? n.renderedPosition() : null; },
});
