// three.js's GLTFLoader in Node, shared by the client scripts: textures are skipped (decoding
// them needs a browser; geometry, skins and clips do not). `plugins`: extra loader plugins
// (parser) => plugin, e.g. three-vrm's VRMLoaderPlugin.
import fs from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

export function loadGltf(file, plugins = []) {
  const bytes = fs.readFileSync(file);
  const loader = new GLTFLoader();
  loader.register(() => ({ name: 'retail_skip_textures', loadTexture: () => Promise.resolve(new THREE.Texture()) }));
  for (const plugin of plugins) loader.register(plugin);
  return new Promise((resolve, reject) =>
    loader.parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), '', resolve, reject));
}
