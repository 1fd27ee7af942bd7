// A VRM (0.x or 1.0) through three.js's GLTFLoader with three-vrm's plugin, shared by the client
// scripts: the glTF, its VRM (an error when three-vrm did not take the file as one), every node
// as three.js built it (by glTF node index) and the file's JSON.
import { VRMLoaderPlugin } from '@pixiv/three-vrm';
import { loadGltf } from './load_gltf.mjs';

export async function loadVrm(file) {
  const gltf = await loadGltf(file, [(parser) => new VRMLoaderPlugin(parser)]);
  const vrm = gltf.userData.vrm;
  if (!vrm) throw new Error(`${file}: three-vrm did not load it as a VRM`);
  const nodes = await Promise.all(gltf.parser.json.nodes.map((_, i) => gltf.parser.getDependency('node', i)));
  return { gltf, vrm, nodes, json: gltf.parser.json };
}
