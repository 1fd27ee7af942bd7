// The hair edges both head-turn comparisons measure (docs/hair.md): every edge of a skinned mesh
// with an end weighted (> 0) to one of `bones`, each once per mesh, in triangle order.
//   hairEdges(meshes, bones) -> [{ m, a, b }]   (meshes: THREE.SkinnedMesh[], bones: Set of bones)
export function hairEdges(meshes, bones) {
  const edges = [];
  for (const m of meshes) {
    const si = m.geometry.attributes.skinIndex, sw = m.geometry.attributes.skinWeight;
    const hair = new Uint8Array(si.count);
    for (let v = 0; v < si.count; v++)
      for (let k = 0; k < 4; k++) if (sw.getComponent(v, k) > 0 && bones.has(m.skeleton.bones[si.getComponent(v, k)])) hair[v] = 1;
    const idx = m.geometry.index, tri = idx ? idx.count : m.geometry.attributes.position.count;
    const keys = new Set();
    for (let t = 0; t + 2 < tri; t += 3) {
      const f = [0, 1, 2].map((k) => (idx ? idx.getX(t + k) : t + k));
      for (let k = 0; k < 3; k++) {
        const a = Math.min(f[k], f[(k + 1) % 3]), b = Math.max(f[k], f[(k + 1) % 3]);
        if (a === b || !(hair[a] || hair[b])) continue;
        const key = a * 4294967296 + b;
        if (!keys.has(key)) { keys.add(key); edges.push({ m, a, b }); }
      }
    }
  }
  return edges;
}
