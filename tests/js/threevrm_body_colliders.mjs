// @pixiv/three-vrm reads the body capsules retail appends as VRM colliders (issue 31 point 2,
// docs/hair.md "Body capsules as VRM colliders"). For the generated VRM 0.x and VRM 1.0 ponytail
// (make_test_rig --vrm 0|1 --ponytail): `retail IN OUT --hair Ponytail`; three-vrm loads OUT;
// every capsule the report marks `exported` is among the ponytail joints' colliders, placed where
// retail put it (world, at load: VRM 1 one capsule from `a` to `b`; VRM 0.x spheres whose first
// and last centres are `a` and `b` and whose others lie on that axis, spacing <= the radius), the
// radius the report's; the tail's joints have none of them. Then, after 2 s still, the body moves
// for 4 s at 60 Hz updates (hips lean forward and turn, the neck pitches back and rolls): the
// ponytail joints' deepest centreline depth in those capsules (riding their nodes) with the groups
// as written, and with the appended groups taken off the ponytail's joints at run time (the
// control). Pass: the control goes deeper than 10 mm (the motion reaches the body), with them the
// joints' centres stay outside (depth < 0).
//   node threevrm_body_colliders.mjs --retail BIN --make-rig BIN --out DIR
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
const v3 = (a) => new THREE.Vector3(a[0], a[1], a[2]);

/// A collider's world points at the current pose: its offset, and (capsule) its tail.
function colliderWorld(collider) {
  collider.updateWorldMatrix(true, false);
  const head = new THREE.Vector3().setFromMatrixPosition(collider.colliderMatrix);
  const tail = collider.shape.type === 'capsule'
    ? collider.shape.tail.clone().applyMatrix4(collider.matrixWorld) : head.clone();
  return { head, tail };
}

/// Distance from p to segment a-b.
function segmentDistance(p, a, b) {
  const ab = b.clone().sub(a), l2 = ab.lengthSq();
  const s = l2 > 0 ? Math.min(1, Math.max(0, p.clone().sub(a).dot(ab) / l2)) : 0;
  return p.distanceTo(a.clone().addScaledVector(ab, s));
}

/// The ponytail joints' colliders that are the report's capsule `cap` (world `a`, `b`, radius).
function matching(colliders, cap, version) {
  const a = v3(cap.a), b = v3(cap.b), tol = 1e-4;
  return colliders.filter((c) => {
    const w = colliderWorld(c);
    if (Math.abs(c.shape.radius - cap.radius) > 1e-5 * Math.max(1, cap.radius) + 1e-6) return false;
    if (version === 1) return c.shape.type === 'capsule' && w.head.distanceTo(a) < tol && w.tail.distanceTo(b) < tol;
    return c.shape.type === 'sphere' && segmentDistance(w.head, a, b) < tol;
  });
}

/// The deepest centreline depth of the ponytail joints in the exported capsules over a sway.
function sway({ gltf, vrm, nodes }, hairJoints, capsules) {
  const scene = gltf.scene, manager = vrm.springBoneManager;
  const hips = vrm.humanoid.getRawBoneNode('hips'), neck = vrm.humanoid.getRawBoneNode('neck');
  scene.updateMatrixWorld(true);
  // Each capsule rides its node: its ends in the node's frame at load.
  const riding = capsules.map((c) => {
    const node = nodes[c.node], inv = node.matrixWorld.clone().invert();
    return { node, a: v3(c.a).applyMatrix4(inv), b: v3(c.b).applyMatrix4(inv), r: c.radius };
  });
  const hq = hips.quaternion.clone(), nq = neck.quaternion.clone();
  const dt = 1 / 60;
  manager.reset();
  for (let s = 0; s < 120; s++) manager.update(dt); // settle
  let deepest = -Infinity;
  // 4 s, ramped in over the first: the hips lean 0.5 rad forward and turn +-0.5 rad (2 s period),
  // the neck pitches 1 rad back and rolls +-0.3 rad (1.3 s): the ponytail is thrown at the neck.
  const M = { lean: 0.5, turn: 0.5, tilt: 0.3, pitch: -1.0 };
  for (let s = 1; s <= 240; s++) {
    const t = s * dt, ramp = Math.min(1, t);
    const lean = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(1, 0, 0), M.lean * ramp);
    const turn = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 1, 0), M.turn * Math.sin(2 * Math.PI * t / 2) * ramp);
    const tilt = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 0, 1), M.tilt * Math.sin(2 * Math.PI * t / 1.3) * ramp);
    const pitch = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(1, 0, 0), M.pitch * ramp);
    hips.quaternion.copy(hq).premultiply(lean).premultiply(turn);
    neck.quaternion.copy(nq).multiply(tilt).multiply(pitch);
    scene.updateMatrixWorld(true);
    manager.update(dt);
    scene.updateMatrixWorld(true);
    for (const j of hairJoints) {
      if (!j.child) continue;
      const p = new THREE.Vector3().setFromMatrixPosition(j.child.matrixWorld);
      for (const c of riding) {
        const a = c.a.clone().applyMatrix4(c.node.matrixWorld), b = c.b.clone().applyMatrix4(c.node.matrixWorld);
        deepest = Math.max(deepest, c.r - segmentDistance(p, a, b));
      }
    }
  }
  return deepest;
}

for (const version of [0, 1]) {
  const input = path.join(outDir, `ponytail-vrm${version}.vrm`);
  const output = path.join(outDir, `ponytail-vrm${version}-out.vrm`);
  execFileSync(makeRig, [input, '--vrm', String(version), '--ponytail'], { stdio: 'inherit' });
  execFileSync(retail, ['-q', input, output, '--hair', 'Ponytail', '--clips', 'Walk'], { stdio: 'inherit' });
  const report = JSON.parse(fs.readFileSync(output.replace(/\.vrm$/, '.report.json'), 'utf8'));
  const character = report.characters[0];
  const exported = character.hair.colliders.body_capsules.filter((b) => b.exported);
  check(exported.length >= 2, `VRM ${version}: ${exported.length} body capsule(s) exported (want the neck and chest at least)`);
  check(exported.length === character.vrm_springs.colliders.length, `VRM ${version}: report lists ${character.vrm_springs.colliders.length} colliders`);
  const loaded = await loadVrm(output);
  const joints = [...loaded.vrm.springBoneManager.joints];
  const hairJoints = joints.filter((j) => /^Hair_/.test(j.bone.name));
  const tailJoints = joints.filter((j) => /^Tail_/.test(j.bone.name));
  check(hairJoints.length > 0 && tailJoints.length > 0, `VRM ${version}: ${hairJoints.length} hair and ${tailJoints.length} tail joints`);
  const colliders = (js) => [...new Set(js.flatMap((j) => j.colliderGroups.flatMap((g) => g.colliders)))];
  const hairColliders = colliders(hairJoints), tailColliders = new Set(colliders(tailJoints));
  const ours = new Set();
  const capsules = [];
  for (const cap of exported) {
    const m = matching(hairColliders, cap, version);
    const want = version === 1 ? 1 : null;
    if (version === 1) check(m.length === want, `VRM ${version}: ${cap.bone}: ${m.length} capsule(s) at a=${cap.a} b=${cap.b} r=${cap.radius}`);
    else {
      const ends = m.map((c) => colliderWorld(c).head);
      const hasA = ends.some((p) => p.distanceTo(v3(cap.a)) < 1e-4), hasB = ends.some((p) => p.distanceTo(v3(cap.b)) < 1e-4);
      const sorted = ends.map((p) => p.distanceTo(v3(cap.a))).sort((x, y) => x - y);
      let gap = 0;
      for (let i = 1; i < sorted.length; i++) gap = Math.max(gap, sorted[i] - sorted[i - 1]);
      check(m.length >= 2 && hasA && hasB && gap <= cap.radius + 1e-5,
        `VRM ${version}: ${cap.bone}: ${m.length} spheres, ends at a ${hasA} and b ${hasB}, largest gap ${gap.toFixed(4)} (radius ${cap.radius})`);
    }
    for (const c of m) { ours.add(c); check(!tailColliders.has(c), `VRM ${version}: ${cap.bone}: a tail joint respects it`); }
    capsules.push(cap);
  }
  const withThem = sway(loaded, hairJoints, capsules);
  const control = await loadVrm(output); // the appended groups taken off the ponytail's joints
  const controlHair = [...control.vrm.springBoneManager.joints].filter((j) => /^Hair_/.test(j.bone.name));
  const appended = new Set(character.vrm_springs.collider_groups);
  let removed = 0;
  const groupsJson = version === 1
    ? control.json.extensions.VRMC_springBone.colliderGroups
    : control.json.extensions.VRM.secondaryAnimation.colliderGroups;
  const firstAppended = Math.min(...appended), ownGroups = firstAppended;
  check(groupsJson.length === ownGroups + appended.size, `VRM ${version}: ${groupsJson.length} collider groups (own ${ownGroups} + appended ${appended.size})`);
  for (const j of controlHair) {
    const before = j.colliderGroups.length;
    // three-vrm keeps a spring's groups in file order: the appended ones come last.
    j.colliderGroups = j.colliderGroups.slice(0, before - appended.size);
    removed += before - j.colliderGroups.length;
  }
  check(removed === controlHair.length * appended.size, `VRM ${version}: control removed ${removed} group references`);
  const without = sway(control, controlHair, capsules);
  check(without > 0.01 && withThem < 0, `VRM ${version}: deepest in the body capsules ${(withThem * 1000).toFixed(2)} mm with them (want < 0), ${(without * 1000).toFixed(2)} mm without (want > 10)`);
  console.log(`three-vrm, VRM ${version}: ${exported.length} body capsule(s) (${exported.map((b) => b.bone).join(', ')}) as ` +
    `${ours.size} collider(s) on the ponytail's ${hairJoints.length} joints, none on the tail's; sway: deepest ` +
    `${(withThem * 1000).toFixed(2)} mm with them, ${(without * 1000).toFixed(2)} mm without`);
}
process.exit(failed ? 1 : 0);
