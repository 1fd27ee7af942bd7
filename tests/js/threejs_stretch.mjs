// Independent check of `retail report` with a real client: three.js loads the GLB (GLTFLoader,
// no WebGL), poses it with AnimationMixer at the same times, skins every vertex on the CPU
// through SkinnedMesh.getVertexPosition, and computes the same edge-stretch statistics.
//   node threejs_stretch.mjs --retail PATH --out DIR [--retail-arg ARG] [--shared DIR] [INPUT...]
// Each input is re-rigged by retail first; the output is what both sides measure. Fails when any
// statistic differs by more than 0.5% relative (torn: by more than one sample) on any clip.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { loadGltf } from './load_gltf.mjs';

const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); const v = args[i + 1]; args.splice(i, 2); return v; };
const retail = opt('--retail');
const outDir = opt('--out');
const extra = args.includes('--retail-arg') ? [opt('--retail-arg')] : []; // e.g. --no-bake
// --rest skinned: rest lengths through the skin's own transform, as three.js skins a vertex
// held by the skeleton's root bone (bindMatrixInverse x root world x its inverse bind matrix x
// bindMatrix), instead of the raw POSITION values: what a quantized file needs, its
// dequantisation folded into the inverse bind matrices.
const restSkinned = args.includes('--rest') && opt('--rest') === 'skinned';
fs.mkdirSync(outDir, { recursive: true });
if (args.includes('--shared')) {
  // The auto-rigged files (re-rigged by retail), and the artist originals whose own tail rigs
  // stretch: there both sides measure a tail that really deforms.
  const shared = opt('--shared'), dir = path.join(shared, 'auto-rigged');
  if (fs.existsSync(dir)) {
    args.push(...fs.readdirSync(dir).filter((f) => f.endsWith('.glb')).sort().map((f) => path.join(dir, f)));
    for (const f of ['fox.glb', 'velociraptor.glb', 'khronos-fox.glb']) args.push(path.join(shared, 'originals', f));
  } else console.log(`SKIPPED shared models: ${dir} does not exist`);
}

const load = (file) => loadGltf(file);

function percentile(values, q) {
  if (!values.length) return 1;
  const v = Float64Array.from(values).sort();
  const h = (v.length - 1) * q, lo = Math.floor(h), hi = Math.min(v.length - 1, lo + 1);
  return v[lo] + (h - lo) * (v[hi] - v[lo]);
}

function edgesOf(mesh) {
  const g = mesh.geometry, n = g.attributes.position.count, set = new Set(), out = [];
  const idx = g.index ? g.index.array : Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i + 2 < idx.length; i += 3)
    for (const [a, b] of [[idx[i], idx[i + 1]], [idx[i + 1], idx[i + 2]], [idx[i + 2], idx[i]]]) {
      if (a === b) continue;
      const x = Math.min(a, b), y = Math.max(a, b), key = x * 4294967296 + y;
      if (!set.has(key)) { set.add(key); out.push([x, y]); }
    }
  return out;
}

/// Tail region: the bone with the largest weight is named like a tail (ties: the first listed).
function regionOf(mesh, pattern) {
  const si = mesh.geometry.attributes.skinIndex, sw = mesh.geometry.attributes.skinWeight;
  const tail = new Uint8Array(si.count);
  for (let v = 0; v < si.count; ++v) {
    let best = -1, bw = 0;
    for (let k = 0; k < 4; ++k) if (sw.getComponent(v, k) > bw) { bw = sw.getComponent(v, k); best = si.getComponent(v, k); }
    if (best >= 0 && pattern.test(mesh.skeleton.bones[best].name)) tail[v] = 1;
  }
  return tail;
}

function stats(ratios, edgeMax) {
  let torn = 0;
  for (const r of ratios) if (r > 1.5 || r < 0.67) ++torn;
  return {
    samples: ratios.length, p95: percentile(ratios, 0.95), p99: percentile(ratios, 0.99),
    max: ratios.length ? Math.max(...ratios) : 1, torn_percent: ratios.length ? (100 * torn) / ratios.length : 0,
    edge_max_p99_percent: ratios.length ? 100 * (percentile(edgeMax, 0.99) - 1) : 0,
  };
}

async function measure(file, samples) {
  const gltf = await load(file);
  const meshes = [];
  gltf.scene.traverse((o) => { if (o.isSkinnedMesh) meshes.push(o); });
  const pattern = /tail/i;
  gltf.scene.updateMatrixWorld(true);
  const work = meshes.map((m) => {
    const pos = m.geometry.attributes.position, tail = regionOf(m, pattern), edges = [];
    const ra = new THREE.Vector3(), rb = new THREE.Vector3(), toRest = new THREE.Matrix4();
    if (restSkinned) {
      const bones = m.skeleton.bones;
      const root = bones.findIndex((b) => { for (let p = b.parent; p; p = p.parent) if (bones.includes(p)) return false; return true; });
      toRest.copy(m.bindMatrixInverse).multiply(bones[root].matrixWorld)
        .multiply(m.skeleton.boneInverses[root]).multiply(m.bindMatrix);
    }
    for (const [a, b] of edgesOf(m)) {
      if (tail[a] !== tail[b]) continue;
      const rest = restSkinned ? ra.fromBufferAttribute(pos, a).applyMatrix4(toRest).distanceTo(rb.fromBufferAttribute(pos, b).applyMatrix4(toRest))
        : Math.hypot(pos.getX(a) - pos.getX(b), pos.getY(a) - pos.getY(b), pos.getZ(a) - pos.getZ(b));
      if (rest > 0) edges.push({ a, b, rest, region: tail[a] ? 0 : 1 });
    }
    return { mesh: m, edges, va: new THREE.Vector3(), vb: new THREE.Vector3() };
  });
  const result = [];
  for (const clip of gltf.animations) {
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const action = mixer.clipAction(clip);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    const ratios = [[], []], edgeMax = [new Map(), new Map()];
    for (let s = 0; s < samples; ++s) {
      mixer.setTime((clip.duration * s) / (samples - 1));
      gltf.scene.updateMatrixWorld(true);
      work.forEach((w, mi) => {
        w.mesh.skeleton.update();
        for (const [ei, e] of w.edges.entries()) {
          w.mesh.getVertexPosition(e.a, w.va);
          w.mesh.getVertexPosition(e.b, w.vb);
          const r = w.va.distanceTo(w.vb) / e.rest;
          ratios[e.region].push(r);
          const key = mi * 1e9 + ei;
          edgeMax[e.region].set(key, Math.max(edgeMax[e.region].get(key) ?? 0, r));
        }
      });
    }
    mixer.stopAllAction();
    result.push({ name: clip.name, tail: stats(ratios[0], [...edgeMax[0].values()]), body: stats(ratios[1], [...edgeMax[1].values()]) });
  }
  return result;
}

let failed = 0, passed = 0;
for (const input of args) {
  const out = path.join(outDir, path.basename(path.dirname(input)) + '-' + path.basename(input));
  execFileSync(retail, ['-q', ...extra, input, out], { stdio: ['ignore', 'ignore', 'inherit'] });
  const ours = JSON.parse(execFileSync(retail, ['report', out, '--json', '-', '-q'], { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 }));
  const clips = ours.characters[0].stretch.clips, samples = ours.characters[0].stretch.samples_per_clip;
  const theirs = await measure(out, samples);
  const problems = [];
  for (const [i, c] of clips.entries()) {
    const t = theirs[i];
    if (!t || t.name !== c.name) { problems.push(`clip ${i}: ${c.name} vs ${t && t.name}`); continue; }
    for (const region of ['result', 'body']) {
      const a = c[region], b = t[region === 'result' ? 'tail' : 'body'];
      if (a.samples !== b.samples) problems.push(`${c.name} ${region}: ${a.samples} vs ${b.samples} samples`);
      for (const k of ['p95', 'p99', 'max', 'edge_max_p99_percent']) {
        const x = k === 'edge_max_p99_percent' ? 1 + a[k] / 100 : a[k], y = k === 'edge_max_p99_percent' ? 1 + b[k] / 100 : b[k];
        if (Math.abs(x - y) > 0.005 * Math.max(Math.abs(x), Math.abs(y))) problems.push(`${c.name} ${region} ${k}: ${a[k]} vs ${b[k].toFixed(6)}`);
      }
      if (Math.abs(a.torn_percent - b.torn_percent) > 100 / Math.max(1, a.samples) + 1e-9)
        problems.push(`${c.name} ${region} torn: ${a.torn_percent} vs ${b.torn_percent}`);
    }
  }
  if (problems.length) { console.log(`FAIL ${path.basename(input)}:\n  ${problems.slice(0, 12).join('\n  ')}`); failed++; }
  else {
    const walk = clips.find((c) => /walk/i.test(c.name)) ?? clips[0];
    console.log(`ok   ${path.basename(input)}: ${clips.length} clips agree; ${walk.name} tail p99 ${walk.result.p99.toFixed(3)} ` +
                `torn ${walk.result.torn_percent.toFixed(2)}% over ${walk.result.samples} samples`);
    passed++;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || passed === 0 ? 1 : 0);
