// Browser test of the graph-browser page: Debian's Chromium driven by playwright-core.
//
//   node browser.mjs check URL OUTDIR LOGIC_NODE_ID [SUSPECT_FROM>TO]
//                                                  walk through every view, assert on the DOM,
//                                                  save screenshots in OUTDIR, print a JSON summary
//   node browser.mjs overview URL OUTDIR MIN        the first screen of a viewer opened on no node:
//                                                  at least MIN clusters drawn on screen, one
//                                                  opened and a node of it explored
//   node browser.mjs bench URL RUNS                 time page load to interactive, RUNS times
//
// Exit status 0 means every assertion held; a failure prints what was expected and seen.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [mode, url, ...rest] = process.argv.slice(2);
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';

function assert(cond, what) {
  if (!cond) throw new Error('assertion failed: ' + what);
}

// launch starts Chromium headless with the background networking this machine's closed
// network refuses turned off; playwright gives it a fresh temporary profile.
async function launch() {
  const browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run',
      '--disable-component-update', '--disable-sync'],
  });
  return { browser, close: () => browser.close() };
}

// ready waits for the page to finish drawing the current view.
async function ready(page, view) {
  await page.waitForFunction((v) => document.body.dataset.ready === 'true' && (!v || document.body.dataset.view === v), view, { timeout: 15000 });
}

async function clickNode(page, id, button = 'left') {
  const pos = await page.evaluate((nid) => window.docforgeView.renderedPosition(nid), id);
  assert(pos, `node ${id} is drawn`);
  const box = await page.locator('#graph').boundingBox();
  await page.mouse.click(box.x + pos.x, box.y + pos.y, { button });
}

async function overview(url, outdir, min) {
  mkdirSync(outdir, { recursive: true });
  const { browser, close } = await launch();
  const problems = [];
  const summary = {};
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
    page.on('pageerror', (e) => problems.push('page error: ' + e.message));
    await page.goto(url);
    await ready(page, 'overview');
    const clusters = await page.evaluate(() => window.docforgeView.clusters());
    const links = await page.evaluate(() => window.docforgeView.visibleEdges());
    summary.clusters = clusters.length;
    summary.links = links.length;
    assert(clusters.length >= min, `the first screen draws at least ${min} clusters (${clusters.length})`);
    assert(links.length >= 1, 'and relations between them');
    const box = await page.locator('#graph').boundingBox();
    const off = clusters.filter((c) => c.x < 0 || c.y < 0 || c.x > box.width || c.y > box.height);
    assert(off.length === 0, `every cluster is on screen (${off.map((c) => c.id)})`);
    assert(await page.locator('#results li button[data-cluster]').count() === clusters.length, 'the left panel lists the clusters');
    await page.screenshot({ path: join(outdir, 'overview-1280x800.png') });
    // A click on the largest cluster lists its nodes; a pick explores one.
    const big = clusters.sort((a, b) => b.w - a.w)[0];
    await clickNode(page, big.id);
    await page.waitForFunction((id) => document.body.dataset.selected === id, big.id);
    const members = await page.locator('#results li button[data-id]').count();
    assert(members >= 1, `the cluster ${big.id} lists its nodes`);
    const first = await page.locator('#results li button[data-id]').first().getAttribute('data-id');
    await page.locator('#results li button[data-id]').first().click();
    await page.waitForFunction((id) => document.body.dataset.focus === id, first);
    await ready(page, 'nodes');
    summary.opened = big.id;
    summary.explored = first;
  } finally {
    await close();
  }
  assert(problems.length === 0, 'no console errors: ' + problems.join('; '));
  console.log(JSON.stringify(summary));
}

async function check(url, outdir, logicNode, suspectEdge) {
  mkdirSync(outdir, { recursive: true });
  const { browser, close } = await launch();
  const problems = [];
  const summary = { steps: [] };
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
    page.on('pageerror', (e) => problems.push('page error: ' + e.message));
    page.on('request', (r) => { if (!r.url().startsWith(new URL(url).origin)) problems.push('external request: ' + r.url()); });

    await page.goto(url);
    await ready(page, 'nodes');
    assert(!(await page.url()).includes('token='), 'the token is removed from the address bar');
    // No credential lives in a cookie (a 127.0.0.1 cookie goes to every port); a reload finds
    // the token in this origin's sessionStorage and draws again.
    assert((await context.cookies()).length === 0, 'the viewer sets no cookie');
    await page.reload();
    await ready(page, 'nodes');
    assert((await context.cookies()).length === 0, 'no cookie after a reload either');
    const focus = await page.evaluate(() => document.body.dataset.focus);
    const nodes = await page.evaluate(() => window.docforgeView.visibleNodes());
    assert(nodes.length >= 3 && nodes.includes(focus), `Nodes shows the focus and its neighbours (${nodes.length})`);
    const keyItems = await page.locator('#key-list li[data-relation]').count();
    assert(keyItems >= 1, 'the key lists the relations in view');
    assert(await page.locator('#semantic [data-card=focus]').count() === 1, 'the focus card is shown');
    // A suspect relation (SUSPECT_EDGE: from>to) is drawn dashed in warning orange, labelled,
    // and the key explains it.
    if (suspectEdge) {
      const [from, to] = suspectEdge.split('>');
      const marked = await page.evaluate(() => window.docforgeView.suspectEdges());
      const hit = marked.find((e) => e.from === from && e.to === to);
      assert(hit, `the suspect relation ${suspectEdge} is marked (${JSON.stringify(marked)})`);
      assert(hit.line === 'dashed' && hit.color === 'rgb(232,89,12)' && hit.label === 'suspect', `the suspect edge is dashed orange and labelled (${JSON.stringify(hit)})`);
      const plain = await page.evaluate(() => window.docforgeView.visibleEdges().length);
      assert(marked.length < plain, 'only suspect relations are marked');
      assert(await page.locator('#key-list li[data-review=suspect]').count() === 1, 'the key has a suspect entry');
      summary.suspect = marked.length;
    }
    summary.steps.push({ view: 'nodes', nodes: nodes.length, key: keyItems });
    await page.screenshot({ path: join(outdir, 'nodes-1280x800.png') });

    // Select: highlight, mute, descriptor card.
    const other = nodes.find((n) => n !== focus);
    await clickNode(page, other);
    await page.waitForFunction((id) => document.body.dataset.selected === id, other);
    assert(await page.locator('#card').isVisible(), 'left click opens the descriptor card');
    assert((await page.locator('#card .id').textContent()) === other, 'the card names the selected node in full');
    // Zoom buttons and Space-to-centre change only the viewport.
    const z0 = await page.evaluate(() => window.docforgeView.zoom());
    await page.click('#zoom-in');
    assert(await page.evaluate(() => window.docforgeView.zoom()) > z0, 'zoom in');
    await page.locator('#graph').focus();
    await page.keyboard.press('Space');
    const centred = await page.evaluate((id) => window.docforgeView.renderedPosition(id), other);
    const gbox = await page.locator('#graph').boundingBox();
    assert(Math.abs(centred.x - gbox.width / 2) < 2 && Math.abs(centred.y - gbox.height / 2) < 2, 'Space centres the selection');
    await page.click('#zoom-fit');

    // A descriptor pill fills the left panel with an exact category result set.
    await page.locator('#card .pill[data-field=family]').click();
    await page.waitForFunction(() => /family = /.test(document.getElementById('results-title').textContent));
    assert(await page.locator('#results li button').count() >= 1, 'the pill lists its category');

    // Right panel navigation selects and centres a neighbour (clear of the card); a right click
    // on it opens the inspector.
    await page.locator(`#semantic .member[data-id="${other}"]`).first().click();
    await page.waitForFunction((id) => document.body.dataset.selected === id, other);
    await clickNode(page, other, 'right');
    await page.waitForSelector('#inspector[open]');
    assert((await page.locator('#inspector-body').textContent()).includes(other), 'the inspector shows the full ID');
    await page.click('#inspector-close');

    // Hide and restore, client-side.
    await clickNode(page, other);
    await page.click('#hide');
    assert(!(await page.evaluate(() => window.docforgeView.visibleNodes())).includes(other), 'a hidden node leaves the graph');
    assert(await page.locator('#hidden-list li').count() === 1, 'the hidden node is listed for restoring');
    await page.locator('#hidden-list button').click();
    assert((await page.evaluate(() => window.docforgeView.visibleNodes())).includes(other), 'a restored node returns');
    summary.steps.push({ hide_restore: other });

    // Source action: opens the indexed source at its anchor.
    await clickNode(page, focus);
    await page.locator('#card button', { hasText: 'Source' }).click();
    await page.waitForSelector('#source[open]');
    assert(await page.locator('#source-text .line.anchor').count() === 1, 'the source opens at the anchor line');
    await page.click('#source-close');

    // Flow and Web.
    for (const view of ['flow', 'web']) {
      await page.click(`#views button[data-view=${view}]`);
      await ready(page, view);
      const vn = await page.evaluate(() => window.docforgeView.visibleNodes());
      const ve = await page.evaluate(() => window.docforgeView.visibleEdges());
      assert(vn.includes(focus), `${view} shows the focus`);
      const keyRels = await page.locator('#key-list li[data-relation]').evaluateAll((els) => els.map((e) => e.dataset.relation).sort());
      const edgeRels = [...new Set(ve.map((e) => e[2]))].sort();
      assert(JSON.stringify(keyRels) === JSON.stringify(edgeRels), `${view}'s key is regenerated from its edges (${keyRels} vs ${edgeRels})`);
      summary.steps.push({ view, nodes: vn.length, edges: ve.length });
      await page.screenshot({ path: join(outdir, `${view}-1280x800.png`) });
      if (view === 'flow' && vn.length > 2) {
        // Hiding a contributor prunes what only led through it; whatever stays still leads to the focus.
        const victim = ve.find((e) => e[1] === focus)[0];
        await clickNode(page, victim);
        await page.click('#hide');
        const left = await page.evaluate(() => window.docforgeView.visibleNodes());
        const edges = await page.evaluate(() => window.docforgeView.visibleEdges());
        const reach = new Set([focus]);
        for (let grew = true; grew;) { grew = false; for (const [a, b] of edges) if (reach.has(b) && !reach.has(a)) { reach.add(a); grew = true; } }
        assert(!left.includes(victim) && left.every((n) => reach.has(n)), 'Flow keeps only what still leads to the focus');
        summary.steps.push({ flow_hidden: victim, before: vn.length, after: left.length });
        await page.click('#restore-all');
      }
    }

    // Search, then Explore neighborhood makes another node the root; Logic shows its paths.
    await page.fill('#q', logicNode);
    await page.press('#q', 'Enter');
    await page.waitForSelector(`#results button[data-id="${logicNode}"]`);
    await page.click(`#results button[data-id="${logicNode}"]`);
    await page.waitForSelector('#explore');
    await page.click('#explore');
    await page.waitForFunction((id) => document.body.dataset.focus === id, logicNode);
    await page.click('#views button[data-view=logic]');
    await ready(page, 'logic');
    const steps = await page.evaluate(() => window.docforgeView.visibleNodes());
    const flow = await page.evaluate(() => window.docforgeView.visibleEdges());
    assert(steps.length >= 3, `Logic shows the function's steps (${steps.length})`);
    await page.screenshot({ path: join(outdir, 'logic-1280x800.png') });
    // Hide a step that has a predecessor and a successor: its neighbours are bridged.
    const middle = steps.find((s) => flow.some((e) => e[1] === s && e[0] !== s) && flow.some((e) => e[0] === s && e[1] !== s));
    assert(middle, 'a step with neighbours both ways');
    await clickNode(page, middle);
    await page.locator('#card button', { hasText: 'Hide step' }).click();
    const bridged = await page.evaluate(() => window.docforgeView.visibleEdges());
    assert(bridged.some((e) => e[2] === 'omitted'), 'hiding a step bridges its neighbours with an omitted path');
    assert(await page.locator('#key-list li[data-relation=omitted]').count() === 1, 'the key shows the omitted path');
    await page.locator('#hidden-list button').click();
    summary.steps.push({ view: 'logic', steps: steps.length, hidden_step: middle });

    // Readable at 1920x1080 as well.
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.click('#views button[data-view=nodes]');
    await ready(page, 'nodes');
    await page.screenshot({ path: join(outdir, 'nodes-1920x1080.png') });
    // Keyboard reach: Tab moves through the controls.
    await page.locator('#views button[data-view=flow]').focus();
    await page.keyboard.press('Tab');
    assert(await page.evaluate(() => document.activeElement && document.activeElement.tagName !== 'BODY'), 'Tab reaches the next control');
  } finally {
    await close();
  }
  assert(problems.length === 0, 'no console errors or external requests: ' + problems.join('; '));
  console.log(JSON.stringify(summary));
}

// bench loads the page runs times in fresh contexts and reports the milliseconds from
// navigation to the drawn neighbourhood.
async function bench(url, runs) {
  const { browser, close } = await launch();
  const times = [];
  const marks = []; // per run: milliseconds from navigation start to each stage of the page
  let nodes = 0;
  try {
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const t0 = Date.now();
      await page.goto(url);
      await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 30000 });
      times.push(Date.now() - t0);
      await page.waitForFunction(() => performance.getEntriesByName('docforge:painted').length > 0);
      marks.push(await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const out = { response: Math.round(nav.responseEnd), dom: Math.round(nav.domContentLoadedEventEnd) };
        for (const m of performance.getEntriesByType('mark')) out[m.name.replace('docforge:', '')] = Math.round(m.startTime);
        return out;
      }));
      nodes = await page.evaluate(() => window.docforgeView.visibleNodes().length);
      await context.close();
    }
  } finally {
    await close();
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ runs, nodes, p50_ms: times[Math.floor(times.length / 2)], max_ms: times[times.length - 1], times_ms: times, marks }));
}

try {
  if (mode === 'check') await check(url, rest[0], rest[1], rest[2]);
  else if (mode === 'overview') await overview(url, rest[0], Number(rest[1] || 3));
  else if (mode === 'bench') await bench(url, Number(rest[0] || 5));
  else throw new Error('usage: browser.mjs check URL OUTDIR LOGIC_NODE_ID | overview URL OUTDIR MIN | bench URL RUNS');
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
