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
// among those the report says the output's tail does not tear. Then `retail batch --html` over a
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
/// inside `box` (canvas pixels), read by the test from the rendered canvas.
async function tornPixels(page, box) {
  return page.evaluate((b) => {
    const c = document.getElementById('canvas');
    const o = document.createElement('canvas');
    o.width = c.width; o.height = c.height;
    const ctx = o.getContext('2d');
    ctx.drawImage(c, 0, 0);
    const px = ctx.getImageData(b.x, b.y, b.width, b.height).data;
    let torn = 0;
    for (let i = 0; i < px.length; i += 4) {
      const [r, g, bl] = [px[i], px[i + 1], px[i + 2]];
      if ((r > 220 && g < 40 && bl < 40) || (bl > 220 && r < 40 && g < 40)) ++torn;
    }
    return { torn, pixels: px.length / 4 };
  }, box);
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
  await page.uncheck('#tail-only');
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
    const look = r.status === 'failed' || r.stepped_down > 0 || r.warnings.length > 0 ||
      r.error !== '' || r.worse;
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
