// The head-turn acceptance on a chain retail grew (issue 17; docs/hair.md, "The ponytail against
// three-vrm"): `retail PONYTAIL OUT --hair Ponytail` rebuilds the generated ponytail as a chain
// and runs the head turn on it (the report's characters[].hair.chains[].head_turn); here
// @pixiv/three-vrm's spring bone runs the same head turn on the same bones: VRMSpringBoneJoint
// objects built by hand with settings mapped from ours as vrm_spring_write.cpp's
// vrm_settings_for writes them (Δ = 1/60 s: stiffness = k Δ L, dragForce = 1 − e^(−c Δ),
// gravityPower = g Δ, gravityDir −Y, hitRadius = the skin radius at the link's root), against
// the same torso capsule; the same 120 Hz update, the mesh skinned by three.js at 30 Hz and
// measured with the same definitions as tests/js/headturn_threevrm.mjs.
//   node headturn_ponytail.mjs --retail BIN --rig PONYTAIL.glb --out DIR [--json OUT] [--found]
// --found: no --hair; the chains retail finds itself (issue 31: the generated braid, long hair).
// Exit 0 when every check passes or fails as marked expected below; 1 otherwise.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import {
  VRMSpringBoneCollider, VRMSpringBoneColliderShapeCapsule, VRMSpringBoneJoint, VRMSpringBoneManager,
} from '@pixiv/three-vrm-springbone';
import { loadGltf } from './load_gltf.mjs';
import { hairEdges } from './hair_edges.mjs';

const args = process.argv.slice(2);
const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const retail = opt('--retail'), rig = opt('--rig'), out = opt('--out'), jsonOut = opt('--json');
if (!fs.existsSync(rig)) { console.log(`FAIL: ${rig} does not exist (make_test_rig --ponytail)`); process.exit(1); }
fs.mkdirSync(out, { recursive: true });
const glb = path.join(out, 'ponytail-hair.glb'), reportPath = path.join(out, 'ponytail-hair.report.json');
const hairArgs = args.includes('--found') ? [] : ['--hair', 'Ponytail'];
execFileSync(retail, ['-q', rig, glb, ...hairArgs, '--report', reportPath]);
const report = JSON.parse(fs.readFileSync(reportPath, 'utf8'));
const character = report.characters[0], hair = character.hair, seq = hair.head_turn;
const yaw = (t) => (t <= 0 || t >= seq.turn_s ? 0 : (seq.amplitude_deg * Math.PI) / 180 *
  Math.sin((2 * Math.PI * t) / seq.turn_period_s) * Math.sin((Math.PI * t) / seq.turn_s));

// Ours -> VRM at the reference rate, per link (vrm_settings_for).
const REF = 1 / 60;
function settings(c, i, nodes) {
  const a = new THREE.Vector3().setFromMatrixPosition(nodes[c.nodes[i]].matrixWorld);
  const b = new THREE.Vector3().setFromMatrixPosition(nodes[c.nodes[i + 1]].matrixWorld);
  const scale = new THREE.Vector3().setFromMatrixScale(nodes[c.nodes[i]].matrixWorld);
  return {
    stiffness: c.stiffness_per_s2 * REF * a.distanceTo(b),
    dragForce: -Math.expm1(-c.damping_per_s * REF),
    gravityPower: seq.gravity_mps2 * character.scale * REF,
    gravityDir: new THREE.Vector3(0, -1, 0),
    hitRadius: (seq.radius_scale * c.skin_radius[i]) / ((scale.x + scale.y + scale.z) / 3),
  };
}

// Capsule depth of point p (centreline, no hair radius), as retail's proxy_depth.
function depth(p, cap) {
  const ab = cap.b.clone().sub(cap.a), l2 = ab.lengthSq();
  const s = l2 > 0 ? Math.min(1, Math.max(0, p.clone().sub(cap.a).dot(ab) / l2)) : 0;
  return cap.r - p.distanceTo(cap.a.clone().addScaledVector(ab, s));
}
function p99(values) { // numpy's linear rule
  const v = [...values].sort((a, b) => a - b);
  if (!v.length) return 1;
  const x = (v.length - 1) * 0.99, lo = Math.floor(x), hi = Math.min(v.length - 1, lo + 1);
  return v[lo] + (x - lo) * (v[hi] - v[lo]);
}

// three-vrm's run of the head turn at `updateHz` updates per second (120: retail's solver rate).
async function threeVrm(updateHz) {
  const gltf = await loadGltf(glb);
  const scene = gltf.scene;
  const nodes = await Promise.all(gltf.parser.json.nodes.map((_, i) => gltf.parser.getDependency('node', i)));
  scene.updateMatrixWorld(true);
  const head = nodes[seq.head];
  const headRest = head.matrixWorld.clone(), pivot = new THREE.Vector3().setFromMatrixPosition(headRest);
  const parentInv = head.parent.matrixWorld.clone().invert();
  const caps = [];
  const groups = [];
  if (seq.torso_capsule) {
    const v = (a) => new THREE.Vector3(...a);
    const collider = new VRMSpringBoneCollider(new VRMSpringBoneColliderShapeCapsule(
      { offset: v(seq.torso_capsule.a), tail: v(seq.torso_capsule.b), radius: seq.torso_capsule.radius }));
    scene.add(collider);
    collider.updateWorldMatrix(true, false);
    groups.push({ name: 'retail torso capsule', colliders: [collider] });
    caps.push({ a: v(seq.torso_capsule.a), b: v(seq.torso_capsule.b), r: seq.torso_capsule.radius });
  }
  const manager = new VRMSpringBoneManager();
  for (const c of hair.chains)
    for (let i = 0; i + 1 < c.nodes.length; i++)
      manager.addJoint(new VRMSpringBoneJoint(nodes[c.nodes[i]], nodes[c.nodes[i + 1]], settings(c, i, nodes), groups));
  manager.setInitState();

  const poseHead = (t) => {
    const turn = new THREE.Matrix4().makeTranslation(pivot.x, pivot.y, pivot.z)
      .multiply(new THREE.Matrix4().makeRotationY(yaw(t)))
      .multiply(new THREE.Matrix4().makeTranslation(-pivot.x, -pivot.y, -pivot.z));
    parentInv.clone().multiply(turn).multiply(headRest).decompose(head.position, head.quaternion, head.scale);
    scene.updateMatrixWorld(true);
  };
  // Hair edges per chain: triangle edges of a primitive with an end weighted on the chain's nodes.
  const meshes = [], seen = new Set();
  scene.traverse((o) => { if (o.isSkinnedMesh && !seen.has(o.geometry)) { seen.add(o.geometry); meshes.push(o); } });
  const chains = hair.chains.map((c) => {
    const edges = hairEdges(meshes, new Set(c.nodes.map((n) => nodes[n])));
    return { c, edges, max: new Float64Array(edges.length), bind2: null, tips: [], rest: null, pen: 0, quiet: 0 };
  });
  const skinned = (m, i) => m.getVertexPosition(i, new THREE.Vector3()).applyMatrix4(m.matrixWorld);
  const points = (c) => c.nodes.map((n) => new THREE.Vector3().setFromMatrixPosition(nodes[n].matrixWorld));
  function sample(t) {
    for (const ch of chains) {
      const d2 = ch.edges.map((e) => skinned(e.m, e.a).distanceToSquared(skinned(e.m, e.b)));
      if (!ch.bind2) ch.bind2 = d2;
      d2.forEach((v, e) => { if (ch.bind2[e] > 0) ch.max[e] = Math.max(ch.max[e], v / ch.bind2[e]); });
      const pts = points(ch.c), P = seq.points_per_link, depths = [];
      for (let i = 0; i + 1 < pts.length; i++)
        for (let k = i === 0 ? 1 : 0; k < P; k++) {
          const p = pts[i].clone().lerp(pts[i + 1], k / (P - 1));
          for (const cap of caps) depths.push(depth(p, cap));
        }
      if (!ch.rest) ch.rest = depths;
      depths.forEach((d, k) => { ch.pen = Math.max(ch.pen, d - Math.max(0, ch.rest[k])); });
      const tip = pts.at(-1);
      if (ch.tips.length && t > seq.turn_s + seq.settle_s - seq.quiet_window_s - 1e-9) ch.quiet = Math.max(ch.quiet, tip.distanceTo(ch.tips.at(-1)));
      ch.tips.push(tip);
      if (t === 0) ch.restDir = pts.at(-1).clone().sub(pts.at(-2)).normalize();
    }
  }
  const every = Math.round(updateHz / seq.sample_hz), steps = Math.round((seq.turn_s + seq.settle_s) * updateHz);
  poseHead(0);
  sample(0);
  for (let s = 1; s <= steps; s++) {
    const t = s / updateHz;
    poseHead(t);
    manager.update(1 / updateHz);
    if (s % every === 0) { scene.updateMatrixWorld(true); sample(t); }
  }
  return chains.map((ch) => {
    const ratios = [...ch.max].filter((_, e) => ch.bind2[e] > 0).map(Math.sqrt);
    const pts = points(ch.c), dir = pts.at(-1).clone().sub(pts.at(-2)).normalize();
    return {
      edges: ratios.length,
      edge_max_p99_percent: ratios.length ? 100 * (p99(ratios) - 1) : 0,
      worst_edge_percent: ratios.length ? 100 * (Math.max(...ratios) - 1) : 0,
      penetration_mm: 1e3 * ch.pen, quiet_tip_movement_mm: 1e3 * ch.quiet,
      tip_curl_deg: (Math.acos(Math.min(1, Math.max(-1, dir.dot(ch.restDir)))) * 180) / Math.PI,
    };
  });
}

const at120 = await threeVrm(seq.solver_hz), at60 = await threeVrm(60);
const rows = hair.chains.map((c, i) => ({
  name: c.bones[0], edges: at120[i].edges, retail_edges: c.head_turn.hair_edges,
  retail: {
    edge_max_p99_percent: c.head_turn.edge_max_p99_percent, worst_edge_percent: c.head_turn.worst_edge.stretch_percent,
    penetration_mm: c.head_turn.penetration_mm, quiet_tip_movement_mm: c.head_turn.quiet_tip_movement_mm,
    tip_curl_deg: c.head_turn.tip_curl_deg,
  },
  threevrm: at120[i], threevrm_60hz: at60[i],
}));
const f = (x) => x.toFixed(4).padStart(9);
console.log('chain        edges | p99 max %  retail three-vrm (60 Hz) | worst %  retail three-vrm | penetr mm retail three-vrm | quiet tip mm retail three-vrm | curl deg retail three-vrm (60 Hz)');
for (const r of rows)
  console.log(`${r.name.padEnd(12)} ${String(r.edges).padStart(5)} | ${f(r.retail.edge_max_p99_percent)} ${f(r.threevrm.edge_max_p99_percent)} ${f(r.threevrm_60hz.edge_max_p99_percent)} | ` +
    `${f(r.retail.worst_edge_percent)} ${f(r.threevrm.worst_edge_percent)} | ${f(r.retail.penetration_mm)} ${f(r.threevrm.penetration_mm)} | ` +
    `${f(r.retail.quiet_tip_movement_mm)} ${f(r.threevrm.quiet_tip_movement_mm)} | ${f(r.retail.tip_curl_deg)} ${f(r.threevrm.tip_curl_deg)} ${f(r.threevrm_60hz.tip_curl_deg)}`);
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ file: rig, sequence: seq, rows }, null, 1) + '\n');

// The checks (issue 17's acceptance), against three-vrm at the same 120 Hz update.
// EXPECTED_FAIL: checks retail does not meet on the ponytail yet, kept as they are and reported
// (docs/hair.md has the figures); an expected failure that passes fails the test so the mark
// is removed.
const EXPECTED_FAIL = new Set([]);
let failed = false;
function check(name, ok, what) {
  const xf = EXPECTED_FAIL.has(name);
  console.log(`${ok ? (xf ? 'XPASS' : 'ok') : (xf ? 'XFAIL' : 'FAIL')}: ${name}: ${what}`);
  if (ok === xf) failed = true;
}
for (const r of rows) {
  check('edge_count', r.edges === r.retail_edges && r.edges > 0, `${r.name}: the same ${r.edges} hair edges as retail (${r.retail_edges})`);
  check('p99_lower', r.retail.edge_max_p99_percent < r.threevrm.edge_max_p99_percent,
    `${r.name}: per-edge-max p99 retail ${r.retail.edge_max_p99_percent.toFixed(4)}% < three-vrm ${r.threevrm.edge_max_p99_percent.toFixed(4)}%`);
  check('curl_lower', r.retail.tip_curl_deg < r.threevrm.tip_curl_deg,
    `${r.name}: tip curl at rest retail ${r.retail.tip_curl_deg.toFixed(4)} deg < three-vrm ${r.threevrm.tip_curl_deg.toFixed(4)} deg`);
  check('penetration', r.retail.penetration_mm <= 1, `${r.name}: retail penetration ${r.retail.penetration_mm.toFixed(4)} mm <= 1 mm`);
  check('quiet_tip', r.retail.quiet_tip_movement_mm < 0.001, `${r.name}: retail tip movement in the last 2 s ${r.retail.quiet_tip_movement_mm} mm < 0.001 mm`);
}
process.exit(failed ? 1 : 0);
