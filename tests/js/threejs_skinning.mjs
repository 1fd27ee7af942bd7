// three.js's CPU skinning against retail's own (issue 6): for every output of the shared
// auto-rigged files and godette.vrm, GLTFLoader loads it, every clip plays in an AnimationMixer, and
// SkinnedMesh.getVertexPosition (world space) must match retail's SkinSampler within 1e-4 H on
// every vertex at 24 times per clip.
//   node threejs_skinning.mjs --retail PATH --positions PATH --out DIR --shared DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { loadGltf } from './load_gltf.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const retail = opt('--retail'), positions = opt('--positions'), outDir = opt('--out');
const dir = path.join(opt('--shared'), 'auto-rigged');
if (!fs.existsSync(dir)) { console.log(`SKIPPED: ${dir} does not exist`); process.exit(0); }
fs.mkdirSync(outDir, { recursive: true });

const load = (file) => loadGltf(file);

let failed = false;
const inputs = fs.readdirSync(dir).filter((f) => f.endsWith('.glb')).sort().map((f) => path.join(dir, f));
const vrm = path.join(opt('--shared'), 'originals', 'godette.vrm');
if (fs.existsSync(vrm)) inputs.push(vrm); // a VRM avatar: plain GLTFLoader, its skins and clips
for (const input of inputs) {
  const name = path.basename(input), output = path.join(outDir, name), bin = path.join(outDir, name + '.pos');
  execFileSync(retail, ['-q', input, output], { stdio: ['ignore', 'ignore', 'ignore'] });
  execFileSync(positions, [output, bin, '24']);
  const meta = JSON.parse(fs.readFileSync(bin + '.json', 'utf8'));
  const ours = new Float32Array(fs.readFileSync(bin).buffer.slice(0));
  const gltf = await load(output);
  // Each SkinnedMesh is one glTF primitive: find its block in retail's vertex list.
  const meshes = [];
  gltf.scene.traverse((o) => {
    if (!o.isSkinnedMesh) return;
    const assoc = gltf.parser.associations.get(o);
    const prim = meta.primitives.find((p) => p.mesh === assoc?.meshes && p.primitive === (assoc?.primitives ?? 0));
    if (prim) meshes.push({ mesh: o, first: prim.first, count: prim.count });
  });
  const covered = meshes.reduce((s, m) => s + m.count, 0);
  if (covered !== meta.vertices) {
    console.log(`FAIL ${name}: three.js skinned meshes cover ${covered} of ${meta.vertices} vertices`);
    failed = true;
    continue;
  }
  const mixer = new THREE.AnimationMixer(gltf.scene), v = new THREE.Vector3();
  let worst = 0, where = '', compared = 0, block = 0;
  for (const [c, clipMeta] of meta.clips.entries()) {
    // No clip in the file: its saved pose, as loaded.
    const clip = clipMeta.name === null ? null
      : gltf.animations.find((a) => a.name === clipMeta.name) ?? gltf.animations[c];
    mixer.stopAllAction();
    if (clip) {
      const action = mixer.clipAction(clip);
      action.setLoop(THREE.LoopOnce, 1);
      action.clampWhenFinished = true; // t = duration is the last pose, not the first again
      action.reset().play();
    }
    for (const t of clipMeta.times) {
      if (clip) mixer.setTime(Math.min(t, clip.duration));
      gltf.scene.updateMatrixWorld(true);
      const base = block * meta.vertices * 3;
      for (const { mesh, first, count } of meshes) {
        mesh.skeleton.update();
        for (let i = 0; i < count; ++i) {
          mesh.getVertexPosition(i, v).applyMatrix4(mesh.matrixWorld);
          const k = base + 3 * (first + i);
          const d = Math.hypot(v.x - ours[k], v.y - ours[k + 1], v.z - ours[k + 2]);
          if (d > worst) { worst = d; where = `${clip?.name ?? 'saved pose'} t=${t.toFixed(3)} vertex ${first + i}`; }
          ++compared;
        }
      }
      ++block;
    }
  }
  const limit = 1e-4 * meta.height, ok = worst <= limit;
  console.log(`${ok ? 'ok' : 'FAIL'} ${name}: ${compared} vertex positions over ${meta.clips.length} clips, ` +
    `worst ${(worst / meta.height).toExponential(2)} H (limit 1e-4 H)${ok ? '' : ' at ' + where}`);
  failed ||= !ok;
}
process.exit(failed ? 1 : 0);
