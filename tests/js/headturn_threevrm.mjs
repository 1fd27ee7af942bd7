// The head-turn hair QA (docs/hair.md, "The three-vrm comparison"): retail's solver
// (`retail report IN --head-turn --json -`) against @pixiv/three-vrm's spring bone, run here in
// Node on the same file: the same chains and colliders (the torso capsule retail adds included),
// the same head motion (yaw about world up through the head joint, 40 deg sin(2 pi t / 2 s)
// sin(pi t / 4 s) for 4 s, then 8 s still), the same 120 Hz update, the mesh skinned by three.js
// at 30 Hz and measured with the same definitions (hair edges, per-edge-max p99, penetration
// beyond the rest depth, quiet tip movement, tip curl at rest).
//   node headturn_threevrm.mjs --retail BIN --shared DIR [--json OUT]
// Exit 0 when every check passes or fails as marked expected below; 1 otherwise.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { VRMLoaderPlugin } from '@pixiv/three-vrm';
import { VRMSpringBoneCollider, VRMSpringBoneColliderShapeCapsule } from '@pixiv/three-vrm-springbone';
import { loadGltf } from './load_gltf.mjs';
import { hairEdges } from './hair_edges.mjs';

const args = process.argv.slice(2);
const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const retail = opt('--retail'), shared = opt('--shared'), jsonOut = opt('--json');
const input = path.join(shared, 'originals', 'godette.vrm');
if (!fs.existsSync(input)) { console.log(`SKIPPED: ${input} does not exist`); process.exit(0); }

const R = JSON.parse(execFileSync(retail, ['report', '-q', input, '--head-turn', '--json', '-']).toString());
const seq = R.sequence;
const yaw = (t) => (t <= 0 || t >= seq.turn_s ? 0 : (seq.amplitude_deg * Math.PI) / 180 *
  Math.sin((2 * Math.PI * t) / seq.turn_period_s) * Math.sin((Math.PI * t) / seq.turn_s));

const gltf = await loadGltf(input, [(parser) => new VRMLoaderPlugin(parser)]);
const vrm = gltf.userData.vrm, scene = gltf.scene, manager = vrm.springBoneManager;
const nodes = await Promise.all(gltf.parser.json.nodes.map((_, i) => gltf.parser.getDependency('node', i)));
scene.updateMatrixWorld(true);
const head = nodes[R.head.node];
const headRest = head.matrixWorld.clone(), pivot = new THREE.Vector3().setFromMatrixPosition(headRest);
const parentInv = head.parent.matrixWorld.clone().invert();
const jointOf = new Map([...manager.joints].map((j) => [j.bone, j]));

// The torso capsule, for the chains retail gave it (world = the scene root's frame: identity).
if (R.torso_capsule && R.chains.some((c) => c.torso_capsule.added)) {
  const v = (a) => new THREE.Vector3(...a);
  const collider = new VRMSpringBoneCollider(new VRMSpringBoneColliderShapeCapsule(
    { offset: v(R.torso_capsule.a), tail: v(R.torso_capsule.b), radius: R.torso_capsule.radius }));
  scene.add(collider);
  const group = { name: 'retail torso capsule', colliders: [collider] };
  for (const c of R.chains.filter((c) => c.torso_capsule.added))
    for (const n of c.nodes) { const j = jointOf.get(nodes[n]); if (j) j.colliderGroups = [...j.colliderGroups, group]; }
  manager._isSortedJointsDirty = true;
}

function poseHead(t) {
  const turn = new THREE.Matrix4().makeTranslation(pivot.x, pivot.y, pivot.z)
    .multiply(new THREE.Matrix4().makeRotationY(yaw(t)))
    .multiply(new THREE.Matrix4().makeTranslation(-pivot.x, -pivot.y, -pivot.z));
  const local = parentInv.clone().multiply(turn).multiply(headRest);
  local.decompose(head.position, head.quaternion, head.scale);
  scene.updateMatrixWorld(true);
  for (const c of manager.colliders) c.updateWorldMatrix(false, false);
}

// Per chain: link ends (joint 0 .. the tail of the last joint), colliders (world capsules).
function linkPoints(c) {
  const pts = c.nodes.map((n) => new THREE.Vector3().setFromMatrixPosition(nodes[n].matrixWorld));
  if (c.links === c.nodes.length) {
    const j = jointOf.get(nodes[c.nodes.at(-1)]);
    pts.push(j._currentTail.clone());
  }
  return pts;
}
function colliders(c) {
  const out = new Set();
  for (const n of c.nodes) { const j = jointOf.get(nodes[n]); if (j) for (const g of j.colliderGroups) for (const k of g.colliders) out.add(k); }
  return [...out].map((k) => {
    const a = new THREE.Vector3().setFromMatrixPosition(k.colliderMatrix);
    const b = k.shape.type === 'capsule' ? k.shape.tail.clone().sub(k.shape.offset).applyMatrix4(k.colliderMatrix) : a.clone();
    return { a, b, r: k.shape.radius };
  });
}
function depth(p, cap) {
  const ab = cap.b.clone().sub(cap.a), l2 = ab.lengthSq();
  const s = l2 > 0 ? Math.min(1, Math.max(0, p.clone().sub(cap.a).dot(ab) / l2)) : 0;
  return cap.r - p.distanceTo(cap.a.clone().addScaledVector(ab, s));
}

// Hair edges per chain: triangle edges of a primitive with an end weighted on the chain's joints.
const meshes = [];
const seen = new Set();
scene.traverse((o) => { if (o.isSkinnedMesh && !seen.has(o.geometry)) { seen.add(o.geometry); meshes.push(o); } });
const chains = R.chains.map((c) => {
  const bones = new Set(c.nodes.map((n) => nodes[n]));
  const edges = hairEdges(meshes, bones);
  return { c, edges, max: new Float64Array(edges.length), bind2: null, tips: [], rest: null, pen: 0, quiet: 0 };
});

const skinned = (m, i) => m.getVertexPosition(i, new THREE.Vector3()).applyMatrix4(m.matrixWorld);
function sample(t) {
  for (const ch of chains) {
    const d2 = ch.edges.map((e) => skinned(e.m, e.a).distanceToSquared(skinned(e.m, e.b)));
    if (!ch.bind2) ch.bind2 = d2;
    d2.forEach((v, e) => { if (ch.bind2[e] > 0) ch.max[e] = Math.max(ch.max[e], v / ch.bind2[e]); });
    const pts = linkPoints(ch.c), caps = colliders(ch.c), P = seq.points_per_link, depths = [];
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

const h = 1 / seq.solver_hz, every = Math.round(seq.solver_hz / seq.sample_hz);
const steps = Math.round((seq.turn_s + seq.settle_s) * seq.solver_hz);
poseHead(0);
sample(0);
for (let s = 1; s <= steps; s++) {
  const t = s / seq.solver_hz;
  poseHead(t);
  manager.update(h);
  if (s % every === 0) { scene.updateMatrixWorld(true); sample(t); }
}

function p99(values) { // numpy's linear rule
  const v = [...values].sort((a, b) => a - b);
  if (!v.length) return 1;
  const x = (v.length - 1) * 0.99, lo = Math.floor(x), hi = Math.min(v.length - 1, lo + 1);
  return v[lo] + (x - lo) * (v[hi] - v[lo]);
}
const rows = chains.map((ch) => {
  const ratios = [...ch.max].filter((_, e) => ch.bind2[e] > 0).map(Math.sqrt);
  const pts = linkPoints(ch.c), dir = pts.at(-1).clone().sub(pts.at(-2)).normalize();
  return {
    name: ch.c.name, edges: ratios.length, retail_edges: ch.c.hair_edges,
    threevrm: {
      edge_max_p99_percent: ratios.length ? 100 * (p99(ratios) - 1) : 0,
      penetration_mm: 1e3 * ch.pen, quiet_tip_movement_mm: 1e3 * ch.quiet,
      tip_curl_deg: (Math.acos(Math.min(1, Math.max(-1, dir.dot(ch.restDir)))) * 180) / Math.PI,
    },
    retail: {
      edge_max_p99_percent: ch.c.edge_max_p99_percent, penetration_mm: ch.c.penetration_mm,
      quiet_tip_movement_mm: ch.c.quiet_tip_movement_mm, tip_curl_deg: ch.c.tip_curl_deg,
    },
  };
});

const f = (x) => x.toFixed(4).padStart(9);
console.log('chain                 edges | p99 max %  retail  three-vrm | penetr mm retail three-vrm | quiet tip mm retail three-vrm | curl deg retail three-vrm');
for (const r of rows)
  console.log(`${r.name.padEnd(20)} ${String(r.edges).padStart(6)} | ${f(r.retail.edge_max_p99_percent)} ${f(r.threevrm.edge_max_p99_percent)} | ` +
    `${f(r.retail.penetration_mm)} ${f(r.threevrm.penetration_mm)} | ${f(r.retail.quiet_tip_movement_mm)} ${f(r.threevrm.quiet_tip_movement_mm)} | ` +
    `${f(r.retail.tip_curl_deg)} ${f(r.threevrm.tip_curl_deg)}`);
const mean = (k, who) => rows.reduce((s, r) => s + r[who][k], 0) / rows.length;
const max = (k, who) => Math.max(...rows.map((r) => r[who][k]));
const summary = {};
for (const k of ['edge_max_p99_percent', 'penetration_mm', 'quiet_tip_movement_mm', 'tip_curl_deg'])
  summary[k] = { retail_mean: mean(k, 'retail'), threevrm_mean: mean(k, 'threevrm'), retail_max: max(k, 'retail'), threevrm_max: max(k, 'threevrm') };
console.log(JSON.stringify(summary, null, 1));
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ file: input, rows, summary }, null, 1) + '\n');

// The checks (issue 17's acceptance). EXPECTED_FAIL: checks retail does not meet on godette yet,
// kept as they are and reported (docs/hair.md has the figures); an expected failure that passes
// fails the test so the mark is removed.
const EXPECTED_FAIL = new Set([]);
let failed = false;
function check(name, ok, what) {
  const xf = EXPECTED_FAIL.has(name);
  const tag = ok ? (xf ? 'XPASS' : 'ok') : (xf ? 'XFAIL' : 'FAIL');
  console.log(`${tag}: ${name}: ${what}`);
  if (ok === xf) failed = true;
}
check('edge_count', rows.every((r) => r.edges === r.retail_edges), 'the same hair edges as retail, chain by chain');
check('p99_lower', summary.edge_max_p99_percent.retail_mean < summary.edge_max_p99_percent.threevrm_mean,
  `mean per-edge-max p99 over chains: retail ${summary.edge_max_p99_percent.retail_mean.toFixed(4)}% < three-vrm ${summary.edge_max_p99_percent.threevrm_mean.toFixed(4)}%`);
check('curl_lower', summary.tip_curl_deg.retail_max < summary.tip_curl_deg.threevrm_max,
  `largest tip curl at rest: retail ${summary.tip_curl_deg.retail_max.toFixed(4)} deg < three-vrm ${summary.tip_curl_deg.threevrm_max.toFixed(4)} deg`);
check('penetration', summary.penetration_mm.retail_max <= 1, `retail penetration ${summary.penetration_mm.retail_max.toFixed(4)} mm <= 1 mm`);
check('quiet_tip', summary.quiet_tip_movement_mm.retail_max < 0.001, `retail tip movement in the last 2 s ${summary.quiet_tip_movement_mm.retail_max} mm < 0.001 mm`);
process.exit(failed ? 1 : 0);
