// Quantized, meshopt-with-fallback and plain copies of every shared model give the same H and
// stretch figures (issue 16, class 8), and three.js agrees with retail on the quantized ones.
//   node quantized_parity.mjs --retail PATH --out DIR --shared DIR
// Copies made here with gltf-transform (4.2.1): quantize() with 16-bit positions and weights
// (its default 8-bit weights change the skin itself, by up to 1.4% of a p99), and a meshopt copy
// whose views carry EXT_meshopt_compression data (meshoptimizer's encoder) over a fallback that
// keeps the plain bytes. gltf-transform's own meshopt() writes a fallback buffer without data:
// retail must refuse that one with exit 3 naming the extension. The quantized copies then go
// through threejs_stretch.mjs --rest skinned (retail's figures within 0.5%), and three.js's H
// (skinned at the loaded pose, in world space) on each quantized copy must be its H on the
// plain file within 1%.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as THREE from 'three';
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { quantize, meshopt } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer';
import { loadGltf } from './load_gltf.mjs';

const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const retail = opt('--retail'), outDir = opt('--out'), shared = opt('--shared');
fs.mkdirSync(outDir, { recursive: true });
const here = path.dirname(fileURLToPath(import.meta.url));
const dir = path.join(shared, 'auto-rigged');
if (!fs.existsSync(dir)) { console.log(`SKIPPED: ${dir} does not exist`); process.exit(0); }
const inputs = [
  ...fs.readdirSync(dir).filter((f) => f.endsWith('.glb')).sort().map((f) => path.join(dir, f)),
  ...['fox.glb', 'velociraptor.glb', 'khronos-fox.glb'].map((f) => path.join(shared, 'originals', f)),
];

await MeshoptEncoder.ready;
const io = new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({ 'meshopt.encoder': MeshoptEncoder });

/// GLB bytes -> { json, bin } and back.
function splitGlb(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLen = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLen)));
  const binLen = dv.getUint32(20 + jsonLen, true);
  return { json, bin: bytes.subarray(28 + jsonLen, 28 + jsonLen + binLen) };
}
function joinGlb(json, bin) {
  let text = Buffer.from(JSON.stringify(json));
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const padded = Buffer.concat([Buffer.from(bin), Buffer.alloc((4 - (bin.length % 4)) % 4)]);
  const head = Buffer.alloc(12), jh = Buffer.alloc(8), bh = Buffer.alloc(8);
  head.writeUInt32LE(0x46546c67, 0); head.writeUInt32LE(2, 4);
  head.writeUInt32LE(12 + 8 + text.length + 8 + padded.length, 8);
  jh.writeUInt32LE(text.length, 0); jh.writeUInt32LE(0x4e4f534a, 4);
  bh.writeUInt32LE(padded.length, 0); bh.writeUInt32LE(0x004e4942, 4);
  return Buffer.concat([head, jh, text, bh, padded]);
}

/// The plain file with EXT_meshopt_compression on every vertex-attribute view: the compressed
/// bytes appended to the BIN chunk, the view's own bytes kept as the fallback.
function meshoptWithFallback(file) {
  const { json, bin } = splitGlb(fs.readFileSync(file));
  const chunks = [Buffer.from(bin)];
  let length = bin.length + ((4 - (bin.length % 4)) % 4);
  chunks.push(Buffer.alloc(length - bin.length));
  const strideOf = new Map();
  for (const a of json.accessors ?? []) {
    if (a.bufferView === undefined || a.sparse) continue;
    const size = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 }[a.type] * { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 }[a.componentType];
    strideOf.set(a.bufferView, json.bufferViews[a.bufferView].byteStride ?? size);
  }
  let compressed = 0;
  json.bufferViews.forEach((v, i) => {
    const stride = strideOf.get(i);
    if (v.target !== 34962 || !stride || stride % 4 || v.byteLength % stride || v.buffer !== 0) return;
    const count = v.byteLength / stride;
    const source = bin.subarray(v.byteOffset ?? 0, (v.byteOffset ?? 0) + v.byteLength);
    const data = MeshoptEncoder.encodeGltfBuffer(new Uint8Array(source), count, stride, 'ATTRIBUTES');
    v.extensions = { ...(v.extensions ?? {}), EXT_meshopt_compression: { buffer: 0, byteOffset: length, byteLength: data.length, byteStride: stride, count, mode: 'ATTRIBUTES' } };
    const pad = (4 - (data.length % 4)) % 4;
    chunks.push(Buffer.from(data), Buffer.alloc(pad));
    length += data.length + pad;
    ++compressed;
  });
  const all = Buffer.concat(chunks);
  json.buffers[0].byteLength = all.length;
  json.extensionsUsed = [...new Set([...(json.extensionsUsed ?? []), 'EXT_meshopt_compression'])];
  return { bytes: joinGlb(json, all), compressed };
}

function run(file) {
  const out = path.join(outDir, 'out-' + path.basename(file));
  const r = spawnSync(retail, [file, out, '--report', '-', '-q'], { maxBuffer: 1 << 28 });
  if (r.status !== 0 && r.status !== 6) return { error: `exit ${r.status}: ${r.stderr}` };
  return JSON.parse(r.stdout);
}

/// Largest relative difference of H and the stretch p95/p99 between two reports, with where.
function compare(a, b) {
  let worst = { d: 0, what: '' };
  const note = (d, what) => { if (!(d <= worst.d)) worst = { d, what }; };
  a.characters.forEach((ca, k) => {
    const cb = b.characters[k];
    note(Math.abs(ca.height - cb.height) / ca.height, `H ${ca.height} vs ${cb.height}`);
    if (ca.chains.length !== cb.chains.length) note(Infinity, `${ca.chains.length} vs ${cb.chains.length} chains`);
    (ca.stretch?.clips ?? []).forEach((x, c) => {
      const y = cb.stretch.clips[c];
      for (const rig of ['original', 'rigid', 'result', 'body'])
        for (const s of ['p95', 'p99'])
          if (x[rig]) note(Math.abs(x[rig][s] - y[rig][s]) / Math.abs(x[rig][s]), `${x.name} ${rig} ${s} ${x[rig][s]} vs ${y[rig][s]}`);
    });
  });
  return worst;
}

/// three.js's H: Y extent in world space of every skinned vertex at the loaded pose.
async function threeHeight(file) {
  const gltf = await loadGltf(file);
  gltf.scene.updateMatrixWorld(true);
  let lo = Infinity, hi = -Infinity;
  const v = new THREE.Vector3();
  gltf.scene.traverse((o) => {
    if (!o.isSkinnedMesh) return;
    o.skeleton.update();
    for (let i = 0; i < o.geometry.attributes.position.count; ++i) {
      o.getVertexPosition(i, v).applyMatrix4(o.matrixWorld);
      lo = Math.min(lo, v.y); hi = Math.max(hi, v.y);
    }
  });
  return hi - lo;
}

let passed = 0, failed = 0;
const quantized = [];
for (const input of inputs) {
  const name = path.basename(input, '.glb');
  const problems = [];
  const qfile = path.join(outDir, `${name}.quantized.glb`);
  const doc = await io.read(input);
  await doc.transform(quantize({ quantizePosition: 16, quantizeWeight: 16 }));
  await io.write(qfile, doc);
  quantized.push(qfile);
  const mfile = path.join(outDir, `${name}.meshopt-fallback.glb`);
  const m = meshoptWithFallback(input);
  fs.writeFileSync(mfile, m.bytes);
  const nofile = path.join(outDir, `${name}.meshopt-nofallback.glb`);
  const d2 = await io.read(input);
  await d2.transform(meshopt({ encoder: MeshoptEncoder }));
  await io.write(nofile, d2);

  const plain = run(input), q = run(qfile), mo = run(mfile);
  for (const [label, r] of [['plain', plain], ['quantized', q], ['meshopt', mo]])
    if (r.error) problems.push(`${label}: ${r.error}`);
  let figures = '';
  if (!problems.length) {
    for (const [label, r] of [['quantized', q], ['meshopt', mo]]) {
      const w = compare(plain, r);
      if (!(w.d < 0.01)) problems.push(`${label}: ${w.what} (${(100 * w.d).toFixed(2)}%)`);
      figures += ` ${label} worst ${(100 * w.d).toFixed(2)}%`;
    }
    // three.js skins at the loaded pose, which need not be the bind pose retail reads from the
    // IBMs: its H on the quantized copy must be its own on the plain file.
    const th = await threeHeight(qfile), tp = await threeHeight(input), h = q.characters[0].height;
    if (!(Math.abs(th - tp) < 0.01 * tp)) problems.push(`three.js H ${th} on the quantized copy, ${tp} on the plain file`);
    figures = `H ${plain.characters[0].height} (quantized ${h}; three.js ${tp.toFixed(4)} and ${th.toFixed(4)})` + figures;
  }
  const refused = spawnSync(retail, [nofile, path.join(outDir, 'x.glb'), '-q']);
  if (refused.status !== 3 || !/EXT_meshopt_compression/.test(refused.stderr))
    problems.push(`meshopt without fallback data: exit ${refused.status} ${refused.stderr}`);
  if (problems.length) { console.log(`FAIL ${name}:\n  ${problems.join('\n  ')}`); ++failed; }
  else { console.log(`ok   ${name}: ${figures}; ${m.compressed} views meshopt-compressed`); ++passed; }
}
// three.js recomputes the stretch of retail's outputs for the quantized copies.
const three = spawnSync('node', [path.join(here, 'threejs_stretch.mjs'), '--retail', retail,
  '--out', path.join(outDir, 'threejs'), '--rest', 'skinned', ...quantized], { stdio: 'inherit' });
if (three.status !== 0) { console.log('FAIL three.js on the quantized copies'); ++failed; } else ++passed;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
