// node gltf_transform_io.mjs IN OUT [RUNS]: median wall ms of @gltf-transform/core reading and
// writing the same file (NodeIO, no extensions registered: unknown ones pass through as JSON).
import { NodeIO } from '@gltf-transform/core';
const [input, output, runsArg] = process.argv.slice(2);
const runs = Math.max(1, Number(runsArg ?? 5));
const io = new NodeIO();
const ms = [];
for (let r = 0; r < runs; ++r) {
  const start = performance.now();
  const doc = await io.read(input);
  await io.write(output, doc);
  ms.push(performance.now() - start);
}
ms.sort((a, b) => a - b);
console.log(ms[Math.floor(ms.length / 2)].toFixed(1));
