// @pixiv/three-vrm swings the chains retail grows (issue 17 point 5, docs/hair.md "Writing grown
// chains into a VRM's own springs"). For a generated tailed VRM 0.x and VRM 1.0 rig (make_test_rig
// --vrm 0|1, a spring tuft and colliders of its own): retail re-rigs it; three-vrm loads input
// and output; the output has the input's spring joints plus the new tail chain's, and the new
// tail's tip turns (in the hips' frame, from where it settled) when the hips move and turn over
// one second of springBoneManager.update(1/60). Control: with --no-vrm-springs the tail has no
// spring joint and does not turn.
//   node threevrm_springs.mjs --retail BIN --make-rig BIN --out DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { loadVrm } from './load_vrm.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const retail = opt('--retail'), makeRig = opt('--make-rig'), outDir = opt('--out');
fs.mkdirSync(outDir, { recursive: true });

let failed = false;
const check = (ok, what) => { if (!ok) { console.log(`FAIL: ${what}`); failed = true; } };

/// Largest angle (deg) of the tail's root→tip direction, in the hips' frame, from where it rests
/// after 2 s still, while the hips then sway 0.3 m sideways and turn ±40° about Y over 1 s at
/// 60 Hz.
function tipTurn({ gltf, vrm, nodes, json }) {
  const idx = (name) => json.nodes.findIndex((n) => n.name === name);
  const root = nodes[idx('Tail_1')], tip = nodes[idx('Tail_End')];
  const hips = vrm.humanoid.getRawBoneNode('hips');
  const scene = gltf.scene, manager = vrm.springBoneManager;
  const p0 = hips.position.clone(), q0 = hips.quaternion.clone();
  const dir = () => {
    scene.updateMatrixWorld(true);
    const inv = hips.matrixWorld.clone().invert();
    const a = new THREE.Vector3().setFromMatrixPosition(root.matrixWorld).applyMatrix4(inv);
    const b = new THREE.Vector3().setFromMatrixPosition(tip.matrixWorld).applyMatrix4(inv);
    return b.sub(a).normalize();
  };
  const dt = 1 / 60;
  for (let s = 1; s <= 120; s++) manager.update(dt); // 2 s still: the chain settles (its sag)
  const rest = dir();
  let worst = 0;
  for (let s = 1; s <= 60; s++) {
    const t = s * dt, w = Math.sin(2 * Math.PI * t);
    hips.position.copy(p0).add(new THREE.Vector3(0.3 * w, 0, 0));
    hips.quaternion.copy(q0).premultiply(new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 1, 0), (40 * Math.PI / 180) * w));
    scene.updateMatrixWorld(true);
    manager.update(dt);
    worst = Math.max(worst, (rest.angleTo(dir()) * 180) / Math.PI);
  }
  return worst;
}

const jointBones = (v) => new Set([...(v.vrm.springBoneManager?.joints ?? [])].map((j) => j.bone));

for (const version of [0, 1]) {
  const input = path.join(outDir, `rig-vrm${version}.vrm`);
  const output = path.join(outDir, `rig-vrm${version}-out.vrm`);
  const off = path.join(outDir, `rig-vrm${version}-off.vrm`);
  execFileSync(makeRig, [input, '--vrm', String(version)], { stdio: 'inherit' });
  execFileSync(retail, ['-q', input, output, '--clips', 'Walk'], { stdio: 'inherit' });
  execFileSync(retail, ['-q', input, off, '--clips', 'Walk', '--no-vrm-springs'], { stdio: 'inherit' });
  const report = JSON.parse(fs.readFileSync(output.replace(/\.vrm$/, '.report.json'), 'utf8'));
  const written = report.characters[0].vrm_springs;
  const a = await loadVrm(input), b = await loadVrm(output), c = await loadVrm(off);
  const ja = jointBones(a), jb = jointBones(b), jc = jointBones(c);
  const tailNodes = new Set(b.json.nodes.map((n, i) => (/^Tail_/.test(n.name) ? b.nodes[i] : null)).filter(Boolean));
  const oldInB = [...jb].filter((bone) => !tailNodes.has(bone));
  const newInB = [...jb].filter((bone) => tailNodes.has(bone));
  check(ja.size > 0 && oldInB.length === ja.size, `VRM ${version}: the input's ${ja.size} spring joints -> ${oldInB.length} in the output`);
  check(written?.count === 1 && newInB.length >= written.joints - 1, `VRM ${version}: new tail spring joints ${newInB.length} (report: ${JSON.stringify(written?.count)} chain(s), ${written?.joints} joints)`);
  check(jc.size === ja.size, `VRM ${version}: --no-vrm-springs: ${jc.size} spring joints (input ${ja.size})`);
  const turn = tipTurn(b), still = tipTurn(c);
  check(turn >= 5, `VRM ${version}: the tail tip turned ${turn.toFixed(2)} deg in the hips' frame (want >= 5)`);
  check(still < 0.01, `VRM ${version}: --no-vrm-springs: the tail tip turned ${still.toFixed(4)} deg (want 0)`);
  console.log(`three-vrm, VRM ${version}: ${ja.size} spring joints in, ${oldInB.length} + ${newInB.length} (tail) out; ` +
    `tail tip turns ${turn.toFixed(1)} deg in the hips' frame over 1 s of hip sway (${still.toFixed(4)} with --no-vrm-springs)`);
}
process.exit(failed ? 1 : 0);
