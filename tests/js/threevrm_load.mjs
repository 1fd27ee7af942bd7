// @pixiv/three-vrm's loader on retail's output of a VRM (issue 6): the VRM extension, the
// humanoid map and the spring-bone groups survive, and the VRM runtime accepts the file in Node.
//   node threevrm_load.mjs --retail PATH --out DIR --shared DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadGltf } from './load_gltf.mjs';
import { VRMLoaderPlugin } from '@pixiv/three-vrm';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const retail = opt('--retail'), outDir = opt('--out'), shared = opt('--shared');
const input = path.join(shared, 'originals', 'godette.vrm');
if (!fs.existsSync(input)) { console.log(`SKIPPED: ${input} does not exist`); process.exit(0); }
fs.mkdirSync(outDir, { recursive: true });
const output = path.join(outDir, 'godette.vrm');
execFileSync(retail, ['-q', input, output], { stdio: 'inherit' });

const load = (file) => loadGltf(file, [(parser) => new VRMLoaderPlugin(parser)]);

function summary(gltf) {
  const vrm = gltf.userData.vrm;
  if (!vrm) throw new Error('no VRM in userData: the loader did not accept the file');
  const bones = Object.keys(vrm.humanoid.humanBones).filter((b) => vrm.humanoid.getRawBoneNode(b)).sort();
  const springs = vrm.springBoneManager ? [...vrm.springBoneManager.joints].length : 0;
  const colliders = vrm.springBoneManager ? [...vrm.springBoneManager.colliders].length : 0;
  return { bones, springs, colliders, meta: vrm.meta?.metaVersion ?? vrm.meta?.version ?? '?' };
}

function glbJson(file) {
  const b = fs.readFileSync(file), n = b.readUInt32LE(12);
  return JSON.parse(b.subarray(20, 20 + n).toString('utf8'));
}

const a = summary(await load(input)), b = summary(await load(output));
let failed = false;
const check = (ok, what) => { if (!ok) { console.log(`FAIL: ${what}`); failed = true; } };
check(a.bones.length > 15 && JSON.stringify(a.bones) === JSON.stringify(b.bones), `humanoid bones ${a.bones.length} -> ${b.bones.length}`);
check(a.springs > 0 && a.springs === b.springs, `spring-bone joints ${a.springs} -> ${b.springs}`);
check(a.colliders === b.colliders, `spring-bone colliders ${a.colliders} -> ${b.colliders}`);
const ja = glbJson(input), jb = glbJson(output);
check(JSON.stringify(ja.extensions?.VRM) === JSON.stringify(jb.extensions?.VRM), 'the VRM extension changed');
check(JSON.stringify(ja.extensionsUsed) === JSON.stringify(jb.extensionsUsed), 'extensionsUsed changed');
console.log(`three-vrm: godette.vrm output loads as VRM ${b.meta}: ${b.bones.length} humanoid bones, ` +
  `${b.springs} spring-bone joints, ${b.colliders} colliders; VRM extension byte-identical as JSON`);
process.exit(failed ? 1 : 0);
