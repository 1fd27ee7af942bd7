// The QA pages in a real browser (docs/html-page.md): headless Debian Chromium driven by
// playwright-core (never a downloaded browser).
//   node html_page.mjs --retail PATH --out DIR [--shared SHARED_DIR] [--make-rig PATH]
// For every shared auto-rigged file (../shared/data/auto-rigged and ../shared/animals/
// auto-rigged; skipped with a message when absent): `retail IN OUT --html PAGE`, then the page
// loads with every request but the page itself aborted (any such request fails the test) and no
// console error; the clip selector switches clips (the scrubber's range follows the duration);
// two frames of a clip give different pictures and the same frame the same; with the heat map on
// and only the tail drawn, the input's tail shows torn colours inside its screen box
// (window.retailTest.tailBox) and the output's none, in the clip where the input tears most
// among those the report says the output's tail does not tear; in that clip, everything drawn,
// the body's heat is dimmed (no torn body vertex in a torn colour, no torn pixel outside the
// input's tail box) until "Body at full strength". Every view has the floor at the report's
// floor_y (the lowest point without a bake), drawn. Then `retail batch --html` over a
// folder of the same files: the index lists every file, links each page, and its "needs a look"
// filter keeps exactly the rows the index data marks. `retail report IN --html` gets the load
// check too. Every view of every page shows a mesh. With --make-rig, generated rigs the test
// builds itself: a .gltf input (its pages single and through batch) and a GLB whose texture is a
// relative uri (embedded: no request but the page's own).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const retail = opt('--retail');
const outDir = opt('--out');
const shared = opt('--shared');
const makeRig = opt('--make-rig');
fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });

const inputs = [];
for (const sub of ['data/auto-rigged', 'animals/auto-rigged']) {
  const dir = path.join(shared, '..', sub);
  if (fs.existsSync(dir)) {
    inputs.push(...fs.readdirSync(dir).filter((f) => /\.(glb|vrm|gltf)$/i.test(f)).sort()
      .map((f) => path.join(dir, f)));
  } else console.log(`SKIPPED ${sub}: ${dir} does not exist`);
}
if (!inputs.length && !makeRig) {
  console.log('SKIPPED: no shared auto-rigged models (../shared is missing); nothing to check');
  process.exit(0);
}

let failures = 0;
const fail = (msg) => { ++failures; console.log(`FAIL ${msg}`); };
const check = (ok, msg) => { if (!ok) fail(msg); return ok; };

// A fresh profile (--user-data-dir, which playwright takes as launchPersistentContext's folder).
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'retail-chromium-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

/// A page opened with every request but its own aborted; returns the page and its problems.
async function open(file, viewport = { width: 1500, height: 900 }) {
  const page = await browser.newPage();
  await page.setViewportSize(viewport);
  const url = `file://${path.resolve(file)}`;
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u === url) return route.continue();
    problems.push(`network request: ${u.slice(0, 120)}`);
    return route.abort();
  });
  await page.goto(url);
  return { page, problems };
}

async function ready(page) {
  await page.waitForFunction(() => window.retailTest && (window.retailTest.ready ||
    window.retailTest.error), null, { timeout: 120000 });
  return page.evaluate(() => window.retailTest.error);
}

/// Torn-coloured pixels (pure red or pure blue, the legend's torn swatches) of the canvas
/// inside `box` (canvas pixels) but outside `hole` (canvas pixels, optional), read by the test
/// from the rendered canvas.
async function tornPixels(page, box, hole = null) {
  return page.evaluate(([b, h]) => {
    const c = document.getElementById('canvas');
    const o = document.createElement('canvas');
    o.width = c.width; o.height = c.height;
    const ctx = o.getContext('2d');
    ctx.drawImage(c, 0, 0);
    const px = ctx.getImageData(b.x, b.y, b.width, b.height).data;
    let torn = 0, pixels = 0;
    for (let i = 0; i < px.length; i += 4) {
      const x = b.x + ((i / 4) % b.width), y = b.y + Math.floor(i / 4 / b.width);
      if (h && x >= h.x && x < h.x + h.width && y >= h.y && y < h.y + h.height) continue;
      ++pixels;
      const [r, g, bl] = [px[i], px[i + 1], px[i + 2]];
      if ((r > 220 && g < 40 && bl < 40) || (bl > 220 && r < 40 && g < 40)) ++torn;
    }
    return { torn, pixels };
  }, [box, hole]);
}

/// Ticks or unticks `selector` and waits for the picture to be drawn again.
async function toggle(page, selector, on) {
  const before = await page.evaluate(() => window.retailTest.renders());
  if (on) await page.check(selector); else await page.uncheck(selector);
  await page.waitForFunction((n) => window.retailTest.renders() > n, before);
}

/// With the heat map on and everything drawn, the body is dimmed by default: none of the
/// input's body vertices is shown in a torn colour (however many tear), and the input view has
/// no torn-coloured pixel outside its tail's screen box; "Body at full strength" shows every
/// torn body vertex in its torn colour again.
async function checkDimmedBody(name, page, clip) {
  const body = await page.evaluate(() => window.retailTest.bodyHeat('input'));
  check(body && body.vertices > 0 && body.shownTorn === 0, `${name}: '${clip}': the dimmed ` +
    `body shows ${body?.shownTorn} of its ${body?.torn} torn vertices in a torn colour`);
  const box = await page.evaluate(() => window.retailTest.tailBox('input'));
  const rect = await page.evaluate(() => {
    const c = document.getElementById('canvas');
    return { x: 0, y: 0, width: Math.round(c.width / window.retailTest.views().length),
      height: c.height };
  });
  const dim = await tornPixels(page, rect, box?.canvas);
  check(dim.torn <= 0.0005 * dim.pixels, `${name}: '${clip}': with the body dimmed the input ` +
    `view shows ${dim.torn} torn pixels of ${dim.pixels} outside the tail's box`);
  await toggle(page, '#body-full', true);
  const full = await page.evaluate(() => window.retailTest.bodyHeat('input'));
  const fullPx = await tornPixels(page, rect, box?.canvas);
  check(full.shownTorn === full.torn, `${name}: '${clip}': at full strength the body shows ` +
    `${full.shownTorn} of its ${full.torn} torn vertices in a torn colour`);
  console.log(`${name}: '${clip}' body: ${full.torn} of ${full.vertices} vertices torn, shown ` +
    `torn dimmed ${body.shownTorn}, at full strength ${full.shownTorn}; torn pixels outside the ` +
    `tail box: dimmed ${dim.torn}, full ${fullPx.torn}`);
  await toggle(page, '#body-full', false);
}

/// The floor: an object in every view's scene at the report's floor height (the bake's
/// floor_y, the lowest of the characters'; the rig's lowest point when no bake ran), visible,
/// and drawn (the picture changes when the Floor toggle hides it: checked on the first page
/// only, to keep the test short).
let floorPixelsChecked = false;
async function checkFloor(name, page) {
  const want = await page.evaluate(() => {
    const ys = (window.retailTest.data.report?.characters ?? []).map((c) => c.bake?.floor_y)
      .filter((y) => typeof y === 'number');
    return ys.length ? Math.min(...ys) : null;
  });
  for (const key of await page.evaluate(() => window.retailTest.views())) {
    const f = await page.evaluate((k) => window.retailTest.floor(k), key);
    if (!check(f && f.inScene && f.visible, `${name}: the ${key} view has no floor drawn`)) return;
    if (want !== null) {
      check(f.source === 'report' && Math.abs(f.y - want) < 1e-9,
        `${name}: the ${key} view's floor is at ${f.y} (${f.source}), the report's at ${want}`);
    } else check(f.source === 'lowest point', `${name}: floor from ${f.source} without a bake`);
  }
  if (floorPixelsChecked) return;
  floorPixelsChecked = true;
  const on = await page.locator('#canvas').screenshot();
  await toggle(page, '#floor', false);
  const off = await page.locator('#canvas').screenshot();
  await toggle(page, '#floor', true);
  check(!on.equals(off), `${name}: hiding the floor changes no pixel`);
}

async function setFrame(page, f) {
  const before = await page.evaluate(() => window.retailTest.renders());
  await page.locator('#scrubber').fill(String(f));
  await page.waitForFunction((n) => window.retailTest.renders() > n, before);
  return page.locator('#canvas').screenshot();
}

async function checkPlayer(name, page) {
  const clips = await page.locator('#clip option').count();
  const durations = new Set();
  for (let i = 0; i < clips; ++i) {
    await page.selectOption('#clip', String(i));
    const st = await page.evaluate(() => window.retailTest.state());
    const max = Number(await page.locator('#scrubber').getAttribute('max'));
    check(st.clip === i, `${name}: the selector did not switch to clip ${i}`);
    check(max === st.frames - 1 && max === Math.max(1, Math.round(st.duration * 30)),
      `${name}: clip ${i}: scrubber max ${max} for ${st.duration} s`);
    durations.add(max);
  }
  if (clips > 1) check(durations.size > 1 || clips < 2, `${name}: every clip has the same scrubber range`);
  // Two frames differ, the same frame again is the same picture.
  await page.selectOption('#clip', String(clips - 1));
  const last = Number(await page.locator('#scrubber').getAttribute('max'));
  const a = await setFrame(page, 0), b = await setFrame(page, Math.max(1, Math.floor(last / 2)));
  const a2 = await setFrame(page, 0);
  check(!a.equals(b), `${name}: frames 0 and ${Math.floor(last / 2)} look the same`);
  check(a.equals(a2), `${name}: frame 0 twice gives different pictures`);
}

async function checkHeat(name, page) {
  const rows = await page.evaluate(() => window.retailTest.data.report.characters
    .flatMap((c) => (c.stretch ? c.stretch.clips : [])));
  let pick = -1;
  rows.forEach((r, i) => {
    if (r.result.torn_percent === 0 && r.original.torn_percent > 0 &&
        (pick < 0 || r.original.torn_percent > rows[pick].original.torn_percent)) pick = i;
  });
  if (pick < 0) { console.log(`${name}: no clip where the input tears and the output does not; heat check skipped`); return; }
  await page.selectOption('#clip', String(pick));
  await page.check('#heat');
  await page.check('#tail-only');
  const seen = {};
  for (const view of ['input', 'output']) {
    const box = await page.evaluate((v) => window.retailTest.tailBox(v), view);
    if (!check(box, `${name}: no tail box in the ${view} view`)) return;
    seen[view] = await tornPixels(page, box.canvas);
  }
  const share = (s) => s.torn / s.pixels;
  check(share(seen.input) >= 0.01, `${name}: '${rows[pick].name}': the input's tail shows ` +
    `${seen.input.torn} torn pixels of ${seen.input.pixels} (report: ${rows[pick].original.torn_percent}% torn)`);
  check(share(seen.output) < 0.001, `${name}: '${rows[pick].name}': the output's tail shows ` +
    `${seen.output.torn} torn pixels of ${seen.output.pixels}`);
  console.log(`${name}: '${rows[pick].name}' torn pixels in the tail box: input ` +
    `${seen.input.torn}/${seen.input.pixels}, output ${seen.output.torn}/${seen.output.pixels}`);
  await toggle(page, '#tail-only', false);
  await checkDimmedBody(name, page, rows[pick].name);
  await page.uncheck('#heat');
}

async function checkPage(name, file, { player = true, heat = true } = {}) {
  const { page, problems } = await open(file);
  const error = await ready(page);
  check(!error, `${name}: the page reports: ${error}`);
  if (!error) {
    for (const key of await page.evaluate(() => window.retailTest.views())) {
      const meshes = await page.evaluate((k) => window.retailTest.meshes?.(k) ?? 0, key);
      check(meshes > 0, `${name}: the ${key} view shows no mesh`);
    }
  }
  if (!error) await checkFloor(name, page);
  if (!error && player) await checkPlayer(name, page);
  if (!error && heat) await checkHeat(name, page);
  await page.waitForTimeout(100);
  for (const p of problems) fail(`${name}: ${p}`);
  await page.close();
}

const run = (a) => execFileSync(retail, a, { stdio: ['ignore', 'ignore', 'inherit'] });

for (const file of inputs) {
  const name = path.basename(file).replace(/\.[^.]+$/, '');
  const out = path.join(outDir, `${name}${path.extname(file)}`), html = path.join(outDir, `${name}.html`);
  run(['-q', file, out, '--html', html]);
  await checkPage(name, html);
}
// Generated rigs (--make-rig), built here: a skinned .gltf input (its views carried a buffer
// without data) and a GLB whose image is a relative uri (it was embedded as a uri, and fetched).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
/// `src` (a GLB) written to `dst` with its JSON changed by `edit`.
function editGlb(src, dst, edit) {
  const b = fs.readFileSync(src);
  const jsonLength = b.readUInt32LE(12);
  const json = JSON.parse(b.subarray(20, 20 + jsonLength).toString('utf8'));
  edit(json);
  let text = Buffer.from(JSON.stringify(json));
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const rest = b.subarray(20 + jsonLength);
  const head = Buffer.alloc(20);
  head.writeUInt32LE(0x46546c67, 0);
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(20 + text.length + rest.length, 8);
  head.writeUInt32LE(text.length, 12);
  head.writeUInt32LE(0x4e4f534a, 16);
  fs.writeFileSync(dst, Buffer.concat([head, text, rest]));
}
if (makeRig) {
  const dir = path.join(outDir, 'generated');
  const glb = path.join(dir, 'rig.glb'), gltfDir = path.join(dir, 'gltf-in');
  const texDir = path.join(dir, 'texture-in');
  for (const d of [gltfDir, texDir]) fs.mkdirSync(d, { recursive: true });
  execFileSync(makeRig, ['--tail', 'carried', glb], { stdio: 'ignore' });
  run(['-q', '--mode', 'detect', glb, path.join(gltfDir, 'rig.gltf')]);
  fs.rmSync(path.join(gltfDir, 'rig.report.json'));
  const gltf = path.join(gltfDir, 'rig.gltf');
  run(['-q', gltf, path.join(dir, 'gltf-out.glb'), '--html', path.join(dir, 'gltf-glb.html')]);
  await checkPage('generated .gltf -> .glb', path.join(dir, 'gltf-glb.html'));
  run(['-q', gltf, path.join(dir, 'gltf-out.gltf'), '--html', path.join(dir, 'gltf-gltf.html')]);
  await checkPage('generated .gltf -> .gltf', path.join(dir, 'gltf-gltf.html'), { heat: false });
  const bout = path.join(dir, 'gltf-batch');
  run(['batch', '-q', gltfDir, bout, '--html']);
  await checkPage('generated .gltf (batch)', path.join(bout, 'rig.html'), { player: false, heat: false });
  const { page, problems } = await open(path.join(bout, 'index.html'));
  await page.waitForTimeout(100);
  for (const p of problems) fail(`generated .gltf (batch) index: ${p}`);
  await page.close();
  run(['report', '-q', gltf, '--html', path.join(dir, 'gltf-report.html')]);
  await checkPage('report generated .gltf', path.join(dir, 'gltf-report.html'),
    { player: false, heat: false });
  // The GLB whose every material's base colour is an image beside it ('tex.png').
  editGlb(glb, path.join(texDir, 'rig.glb'), (j) => {
    j.images = [{ uri: 'tex.png' }];
    j.textures = [{ source: 0 }];
    for (const m of j.materials) m.pbrMetallicRoughness.baseColorTexture = { index: 0 };
  });
  fs.writeFileSync(path.join(texDir, 'tex.png'), PNG);
  run(['-q', path.join(texDir, 'rig.glb'), path.join(dir, 'tex-out.glb'), '--html',
    path.join(dir, 'tex.html')]);
  await checkPage('GLB with a relative image uri', path.join(dir, 'tex.html'), { heat: false });
  const textured = await (async () => {
    const { page: p } = await open(path.join(dir, 'tex.html'));
    await ready(p);
    const n = await p.evaluate(() => window.retailTest.textured?.() ?? 0);
    await p.close();
    return n;
  })();
  check(textured === 3, `GLB with a relative image uri: ${textured} of 3 views show the texture`);
  // A run that grows hair only: the toggles say "Hair", and the report lists every grown chain
  // with its kind (the report's chain_records).
  const pony = path.join(dir, 'ponytail.glb');
  execFileSync(makeRig, ['--ponytail', '--tail', 'none', pony], { stdio: 'ignore' });
  run(['-q', pony, path.join(dir, 'pony-out.glb'), '--hair', 'Ponytail', '--html',
    path.join(dir, 'pony.html')]);
  await checkPage('generated ponytail --hair', path.join(dir, 'pony.html'),
    { player: false, heat: false });
  {
    const { page: p } = await open(path.join(dir, 'pony.html'));
    await ready(p);
    const label = (await p.locator('#tail-only').evaluate((e) => e.parentElement.textContent)).trim();
    check(label === 'Hair only', `ponytail page: the toggle reads '${label}', not 'Hair only'`);
    const text = await p.locator('body').innerText();
    check(text.includes('Every grown chain') && /Hair_1_1\s+hair\s+arc/.test(text),
      'ponytail page: no hair chain in the table of grown chains');
    await p.close();
  }
}

// retail report IN --html: the one rig (the first output, which has a tail chain).
if (inputs.length) {
  const name = path.basename(inputs[0]).replace(/\.[^.]+$/, '');
  const html = path.join(outDir, `${name}.stretch.html`);
  run(['report', '-q', path.join(outDir, `${name}${path.extname(inputs[0])}`), '--html', html]);
  await checkPage(`report ${name}`, html, { heat: false });
}

// The batch index over a folder of every input.
if (inputs.length) {
  const inDir = path.join(outDir, 'batch-in'), bout = path.join(outDir, 'batch-out');
  fs.mkdirSync(inDir, { recursive: true });
  for (const f of inputs) fs.copyFileSync(f, path.join(inDir, path.basename(f)));
  try { run(['batch', '-q', inDir, bout, '--html']); } catch (e) { check(e.status === 5, `batch exit ${e.status}`); }
  const { page, problems } = await open(path.join(bout, 'index.html'));
  const rows = await page.locator('#rows tr').evaluateAll((trs) => trs.map((tr) =>
    ({ path: tr.dataset.path, look: tr.dataset.look === 'true', link: tr.querySelector('a')?.getAttribute('href') })));
  const names = inputs.map((f) => path.basename(f)).sort();
  check(JSON.stringify(rows.map((r) => r.path).sort()) === JSON.stringify(names),
    `index lists ${rows.map((r) => r.path)} for ${names}`);
  for (const r of rows) {
    check(r.link && fs.existsSync(path.join(bout, decodeURIComponent(r.link))), `index: ${r.path} links no page`);
  }
  const data = await page.evaluate(() => window.retailTest === undefined &&
    JSON.parse(document.getElementById('retail-data').textContent));
  await page.check('#look');
  const shown = await page.locator('#rows tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.path));
  const want = data.rows.filter((r) => r.needs_look).map((r) => r.path).sort();
  check(JSON.stringify(shown.slice().sort()) === JSON.stringify(want),
    `needs a look shows ${shown} for ${want}`);
  for (const r of data.rows) {
    const look = r.status === 'failed' || r.stepped_down > 0 || r.left_torn > 0 ||
      r.chain_fail.length > 0 || r.warnings.length > 0 || r.error !== '' || r.worse;
    check(look === r.needs_look, `index: ${r.path}: needs_look ${r.needs_look}, expected ${look}`);
  }
  console.log(`index: ${rows.length} files, ${shown.length} need a look`);
  for (const p of problems) fail(`index: ${p}`);
  await page.close();
}

await browser.close();
fs.rmSync(profile, { recursive: true, force: true });
console.log(failures ? `${failures} check(s) failed`
  : `html pages: ${inputs.length} files checked${makeRig ? ', and the generated rigs' : ''}`);
process.exit(failures ? 1 : 0);
