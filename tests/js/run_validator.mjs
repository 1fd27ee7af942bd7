// Runs `retail IN OUT` on each input and the Khronos glTF-Validator on IN and OUT; fails when OUT
// has an error or warning code more often than IN (no new issues), or retail did not exit 0.
//   node run_validator.mjs --retail PATH --out DIR [--retail-arg ARG] [--convert] [--rigs DIR] [--shared DIR] [INPUT...]
// --convert writes OUT in the other container (.glb/.vrm -> .gltf + .bin, .gltf -> .glb;
// docs/containers.md), so the converted output is what is validated.
// --rigs / --shared add every .glb/.vrm/.gltf found below those folders (--shared: skipped, and
// said so, when the folder does not exist).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import validator from 'gltf-validator';

const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); const v = args[i + 1]; args.splice(i, 2); return v; };
const retail = opt('--retail');
const outDir = opt('--out');
const extra = args.includes('--retail-arg') ? [opt('--retail-arg')] : []; // e.g. --no-bake
const convert = args.includes('--convert');
if (convert) args.splice(args.indexOf('--convert'), 1);
const listDir = (dir) => fs.readdirSync(dir, { recursive: true }).map((f) => path.join(dir, f))
  .filter((f) => /\.(glb|vrm|gltf)$/i.test(f)).sort();
if (args.includes('--rigs')) args.push(...listDir(opt('--rigs')));
if (args.includes('--shared')) {
  const shared = opt('--shared');
  if (fs.existsSync(shared)) args.push(...listDir(shared));
  else console.log(`SKIPPED shared models: ${shared} does not exist`);
}
fs.mkdirSync(outDir, { recursive: true });

async function validate(file) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const dir = path.dirname(file);
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        try { resolve(new Uint8Array(fs.readFileSync(path.join(dir, decodeURIComponent(uri))))); }
        catch (e) { reject(e.toString()); }
      }),
  });
  const counts = {};
  for (const m of report.issues.messages) {
    if (m.severity > 1) continue; // 0 error, 1 warning; infos and hints are not issues
    const key = `${m.severity === 0 ? 'error' : 'warning'} ${m.code}`;
    counts[key] = (counts[key] || 0) + 1;
  }
  return { errors: report.issues.numErrors, warnings: report.issues.numWarnings, counts };
}

let failed = 0, passed = 0;
for (const input of args) {
  const ext = path.extname(input).toLowerCase();
  const outExt = !convert ? ext : ext === '.gltf' ? '.glb' : '.gltf';
  const out = path.join(outDir, path.basename(path.dirname(input)) + '-' + path.basename(input, ext) + '.out' + outExt);
  try {
    execFileSync(retail, ['-q', ...extra, input, out], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    console.log(`FAIL ${input}: retail exited ${e.status}: ${e.stderr}`);
    failed++;
    continue;
  }
  const a = await validate(input), b = await validate(out);
  const worse = Object.entries(b.counts).filter(([k, n]) => n > (a.counts[k] || 0));
  if (worse.length) {
    console.log(`FAIL ${input}: new validator issues ${JSON.stringify(worse)}`);
    failed++;
  } else {
    console.log(`ok   ${path.basename(input)}: in ${a.errors} errors/${a.warnings} warnings, out ${b.errors}/${b.warnings}`);
    passed++;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || passed === 0 ? 1 : 0);
