// Renders the README's QA-page screenshot (docs/images/qa-page.png) from the bundled CC0 sample:
//   build/retail data/sample-tail.glb /tmp/s.glb --html /tmp/s.html
//   node scripts/qa_screenshot.mjs /tmp/s.html docs/images/qa-page.png [clip-name]
// Headless Debian Chromium through playwright-core (tests/js/node_modules), offline, heat map
// on, the clip where the input tears most, its middle frame.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(path.resolve('tests/js/package.json'));
const { chromium } = require('playwright-core');
const [page_file, out_file] = process.argv.slice(2);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'retail-shot-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage();
await page.setViewportSize({ width: 1400, height: 820 });
const url = `file://${path.resolve(page_file)}`;
await page.route('**/*', (r) => (r.request().url() === url ? r.continue() : r.abort()));
await page.goto(url);
await page.waitForFunction(() => window.retailTest && (window.retailTest.ready || window.retailTest.error));
const rows = await page.evaluate(() => window.retailTest.data.report.characters
  .flatMap((c) => (c.stretch ? c.stretch.clips : [])));
let pick = 0;
rows.forEach((r, i) => { if (r.original.torn_percent > rows[pick].original.torn_percent) pick = i; });
await page.selectOption('#clip', String(pick));
await page.check('#heat');
const max = Number(await page.locator('#scrubber').getAttribute('max'));
const before = await page.evaluate(() => window.retailTest.renders());
await page.locator('#scrubber').fill(String(Math.floor(max / 2)));
await page.waitForFunction((n) => window.retailTest.renders() > n, before);
fs.mkdirSync(path.dirname(out_file), { recursive: true });
await page.screenshot({ path: out_file });
console.log(`${out_file}: clip '${rows[pick].name}' (input ${rows[pick].original.torn_percent}% torn, output ${rows[pick].result.torn_percent}%), frame ${Math.floor(max / 2)}`);
await browser.close();
