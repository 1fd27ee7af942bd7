// retail QA page (docs/html-page.md): the rigs side by side on one camera, the clip player, the
// bones, tail motion off and the edge-stretch heat map retail computed, then the report.
// Everything comes from this file: the data (#retail-data, with each view's glTF JSON), the bytes
// its buffer views point at (#retail-blob-N) and three.js (inlined modules, named by the import
// map boot.js makes).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/gltf';
import { OrbitControls } from 'three/addons/orbit';
import { renderReport } from 'retail/report';

const data = JSON.parse(document.getElementById('retail-data').textContent);
const $ = (id) => document.getElementById(id);
const FPS = 30; // the scrubber's frame rate (the bake's default key rate)

// Heat colours (sRGB, as the legend's swatches): torn squash, squash, 1.0, stretch, torn stretch.
const HEAT = { tornBelow: 0x0000ff, squash: 0x73a6ff, neutral: 0xebebeb, stretch: 0xffbf4d,
  tornAbove: 0xff0000 };

function bytesOf(b64) {
  const s = atob(b64.trim());
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; ++i) out[i] = s.charCodeAt(i);
  return out;
}

const lin = (hex) => new THREE.Color().setHex(hex); // setHex reads sRGB, keeps linear

/// Linear RGB of one heat code (retail's heat_code: round(128 + 64 log2 r)).
function heatColor(code) {
  const r = Math.pow(2, (code - 128) / 64);
  if (r > data.torn_above) return lin(HEAT.tornAbove);
  if (r < data.torn_below) return lin(HEAT.tornBelow);
  const up = r >= 1;
  const u = Math.log(r) / Math.log(up ? data.torn_above : data.torn_below);
  return lin(HEAT.neutral).lerp(lin(up ? HEAT.stretch : HEAT.squash), Math.min(1, u));
}
const HEAT_LUT = Array.from({ length: 256 }, (_, c) => heatColor(c));
// The body's heat colours when dimmed (the default): each mixed this far towards DIM_GREY, so
// the tail, in full colour, stands out; "Body at full strength" shows the body's own colours.
const DIM_SHARE = 0.75;
const DIM_GREY = 0x9a9a9a;
const DIM_LUT = HEAT_LUT.map((c) => c.clone().lerp(lin(DIM_GREY), DIM_SHARE));
const isTorn = (code) => {
  const r = Math.pow(2, (code - 128) / 64);
  return r > data.torn_above || r < data.torn_below;
};

// The byte runs the views' buffer views point at (#retail-blob-N), each decoded once.
const blobs = new Map();
function blob(i) {
  if (!blobs.has(i)) blobs.set(i, bytesOf($(`retail-blob-${i}`).textContent));
  return blobs.get(i);
}

/// A view's model: its glTF JSON, every buffer view read from its blob (a copy each, as the
/// loader's own slices); nothing is fetched.
function parseModel(view) {
  const loader = new GLTFLoader();
  loader.register(() => ({
    name: 'retail_blobs',
    loadBufferView(index) {
      const b = view.blobs[index];
      if (b === undefined || b < 0) {
        return Promise.reject(new Error(`bufferViews[${index}] is not in the page`));
      }
      const bytes = blob(b);
      return Promise.resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    },
  }));
  return new Promise((resolve, reject) => loader.parse(JSON.stringify(view.gltf), '', resolve,
    reject));
}

const keyOf = (e) => `${e.node}/${e.mesh}/${e.primitive}`;

/// One rig on the page: its scene, mixer, meshes with their heat maps and tail flags, bones.
class View {
  constructor(def, gltf) {
    this.def = def;
    this.gltf = gltf;
    this.scene = gltf.scene;
    this.mixer = new THREE.AnimationMixer(this.scene);
    const assoc = gltf.parser.associations;
    const heat = new Map(def.heat.map((e) => [keyOf(e), e.clips]));
    const tail = new Map(data.tail.map((e) => [keyOf(e), e.vertices]));
    this.meshes = [];
    this.scene.traverse((o) => {
      const m = assoc.get(o);
      if (!o.isMesh || !m || m.primitives === undefined) return;
      const node = m.nodes ?? assoc.get(o.parent)?.nodes;
      const key = keyOf({ node, mesh: m.meshes, primitive: m.primitives });
      this.meshes.push({ mesh: o, material: o.material, color: o.geometry.getAttribute('color'),
        heat: heat.get(key) ?? null, tail: tail.has(key) ? bytesOf(tail.get(key)) : null,
        colors: new Map() });
    });
    const nodes = new Set(def.chain_nodes);
    this.chain = new Set();
    this.bones = [];
    this.scene.traverse((o) => {
      const n = assoc.get(o)?.nodes;
      if (n !== undefined && nodes.has(n)) this.chain.add(o);
      if (o.isBone) this.bones.push(o);
    });
    this.rest = [...this.chain].map((o) => [o, o.position.clone(), o.quaternion.clone(),
      o.scale.clone()]);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x50555c, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.6);
    sun.position.set(2, 6, 4);
    this.scene.add(sun);
    this.makeBoneLines();
  }

  makeBoneLines() {
    const pairs = this.bones.filter((b) => b.parent && b.parent.isBone);
    this.pairs = pairs;
    const geo = new THREE.BufferGeometry();
    geo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(pairs.length * 6), 3));
    const col = new Float32Array(pairs.length * 6);
    pairs.forEach((b, i) => {
      const c = this.chain.has(b) ? lin(0xffe14d) : lin(0x7fd8ff);
      col.set([c.r, c.g, c.b, c.r, c.g, c.b], i * 6);
    });
    geo.setAttribute('color', new THREE.BufferAttribute(col, 3));
    const mat = new THREE.LineBasicMaterial({ vertexColors: true, depthTest: false,
      depthWrite: false, transparent: true });
    this.lines = new THREE.LineSegments(geo, mat);
    this.lines.renderOrder = 999;
    this.lines.frustumCulled = false;
    this.lines.visible = false;
    this.scene.add(this.lines);
  }

  updateBoneLines() {
    if (!this.lines.visible) return;
    const pos = this.lines.geometry.getAttribute('position');
    const a = new THREE.Vector3(), b = new THREE.Vector3();
    this.pairs.forEach((bone, i) => {
      a.setFromMatrixPosition(bone.parent.matrixWorld);
      b.setFromMatrixPosition(bone.matrixWorld);
      pos.setXYZ(2 * i, a.x, a.y, a.z);
      pos.setXYZ(2 * i + 1, b.x, b.y, b.z);
    });
    pos.needsUpdate = true;
  }

  /// Plays clip `clip` (an entry of data.clips); `still`: without the chain's tracks, the chain
  /// back in its saved (carried rest) pose.
  setClip(clip, still) {
    this.mixer.stopAllAction();
    this.mixer.uncacheRoot(this.scene);
    for (const [o, p, q, s] of this.rest) o.position.copy(p), o.quaternion.copy(q), o.scale.copy(s);
    let source = this.gltf.animations[clip.index];
    if (!source) return;
    if (still && this.chain.size) {
      const tracks = source.tracks.filter((t) => {
        const name = THREE.PropertyBinding.parseTrackName(t.name).nodeName;
        return !this.chain.has(THREE.PropertyBinding.findNode(this.scene, name));
      });
      source = new THREE.AnimationClip(source.name, source.duration, tracks);
    }
    const action = this.mixer.clipAction(source);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
  }

  /// Heat colours on (for clip number `ci` of data.clips) or off; `dim`: the body's (every
  /// vertex not the tail's) mixed towards grey, the tail's in full colour.
  setHeat(on, ci, dim) {
    for (const e of this.meshes) {
      const g = e.mesh.geometry;
      if (!on) {
        e.mesh.material = e.material;
        if (e.color) g.setAttribute('color', e.color);
        else g.deleteAttribute('color');
        continue;
      }
      e.mesh.material = e.heat ? heatMaterial : plainMaterial;
      if (!e.heat) continue;
      const key = `${ci}/${dim ? 'dim' : 'full'}`;
      if (!e.colors.has(key)) {
        const codes = bytesOf(e.heat[ci]);
        const rgb = new Float32Array(g.getAttribute('position').count * 3);
        codes.forEach((c, i) => {
          const k = (dim && !(e.tail && e.tail[i]) ? DIM_LUT : HEAT_LUT)[c];
          rgb[3 * i] = k.r; rgb[3 * i + 1] = k.g; rgb[3 * i + 2] = k.b;
        });
        e.colors.set(key, new THREE.BufferAttribute(rgb, 3));
      }
      e.shown = { ci, dim };
      g.setAttribute('color', e.colors.get(key));
    }
  }

  /// The body's heat as shown (for tests): its vertices (not the tail's) whose heat code is
  /// torn in the shown clip, and how many of them are drawn in a torn colour (the legend's
  /// pure red or blue): all of them at full strength, none when dimmed.
  bodyHeat() {
    let torn = 0, shownTorn = 0, vertices = 0;
    const pure = [lin(HEAT.tornAbove), lin(HEAT.tornBelow)];
    for (const e of this.meshes) {
      if (!e.heat || !e.shown) continue;
      const codes = bytesOf(e.heat[e.shown.ci]);
      const col = e.mesh.geometry.getAttribute('color');
      codes.forEach((c, i) => {
        if (e.tail && e.tail[i]) return;
        ++vertices;
        if (!isTorn(c)) return;
        ++torn;
        const k = new THREE.Color(col.getX(i), col.getY(i), col.getZ(i));
        if (pure.some((p) => p.equals(k))) ++shownTorn;
      });
    }
    return { vertices, torn, shownTorn };
  }

  /// The floor the bake keeps the tail above (the report's characters[].bake.floor_y, the
  /// lowest when several; else the lowest point of the rig at rest): a grid and a faint plane
  /// at that height, `size` wide, centred under `center`.
  addFloor(y, center, size) {
    const group = new THREE.Group();
    group.name = 'retail-floor';
    const grid = new THREE.GridHelper(size, 20, 0x3c4148, 0x5a6068);
    grid.material.transparent = true;
    grid.material.opacity = 0.8;
    const plane = new THREE.Mesh(new THREE.PlaneGeometry(size, size),
      new THREE.MeshBasicMaterial({ color: 0x50565e, transparent: true, opacity: 0.35,
        depthWrite: false, side: THREE.DoubleSide }));
    plane.rotation.x = -Math.PI / 2;
    plane.renderOrder = -1;
    group.add(plane, grid);
    group.position.set(center.x, y, center.z);
    this.floor = group;
    this.scene.add(group);
  }

  /// Only the tail's triangles (all three corners tail vertices) drawn, or everything again.
  setTailOnly(on) {
    for (const e of this.meshes) {
      if (!e.tail) { e.mesh.visible = !on; continue; }
      const g = e.mesh.geometry;
      if (e.index === undefined) {
        e.index = g.getIndex();
        const n = g.getAttribute('position').count, idx = [];
        const corner = (k) => (e.index ? e.index.getX(k) : k);
        const count = e.index ? e.index.count : n;
        for (let k = 0; k + 2 < count; k += 3) {
          const a = corner(k), b = corner(k + 1), c = corner(k + 2);
          if (e.tail[a] && e.tail[b] && e.tail[c]) idx.push(a, b, c);
        }
        e.tailIndex = new THREE.BufferAttribute(n > 65535 ? new Uint32Array(idx) : new Uint16Array(idx), 1);
      }
      g.setIndex(on ? e.tailIndex : e.index);
    }
  }

  /// Screen box (canvas pixels, within `rect` = this view's viewport) of the tail's skinned
  /// vertices under `camera`, or null when the view has no tail vertices in front of it.
  tailBox(camera, rect) {
    this.scene.updateMatrixWorld(true);
    const v = new THREE.Vector3();
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const e of this.meshes) {
      if (!e.tail) continue;
      for (let i = 0; i < e.tail.length; ++i) {
        if (!e.tail[i]) continue;
        e.mesh.getVertexPosition(i, v).applyMatrix4(e.mesh.matrixWorld).project(camera);
        if (v.z < -1 || v.z > 1) continue;
        const px = rect.x + ((v.x + 1) / 2) * rect.width, py = ((1 - v.y) / 2) * rect.height;
        x0 = Math.min(x0, px), x1 = Math.max(x1, px), y0 = Math.min(y0, py), y1 = Math.max(y1, py);
      }
    }
    if (!(x1 >= x0)) return null;
    const cx0 = Math.max(rect.x, Math.floor(x0)), cx1 = Math.min(rect.x + rect.width, Math.ceil(x1));
    const cy0 = Math.max(0, Math.floor(y0)), cy1 = Math.min(rect.height, Math.ceil(y1));
    if (cx1 <= cx0 || cy1 <= cy0) return null;
    return { x: cx0, y: cy0, width: cx1 - cx0, height: cy1 - cy0 };
  }
}

const heatMaterial = new THREE.MeshBasicMaterial({ vertexColors: true });
const plainMaterial = new THREE.MeshBasicMaterial({ color: lin(HEAT.neutral) });

const state = { clip: 0, frame: 0, time: 0, playing: false, speed: 1, heat: false,
  bodyFull: false, bones: false, still: false, tailOnly: false };
const canvas = $('canvas');
// Transparent: the canvas's CSS background (a mid-grey gradient, page.css) shows through, on
// which both dark and light models read.
const renderer = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true,
  alpha: true });
renderer.setPixelRatio(1);
const camera = new THREE.PerspectiveCamera(35, 1, 0.01, 1000);
let controls, views = [], renders = 0, last = null, floorInfo = null;

const clipDef = () => data.clips[state.clip];
const frameCount = () => Math.max(1, Math.round((clipDef()?.duration ?? 0) * FPS)) + 1;

function viewRects() {
  const w = canvas.width, h = canvas.height, n = Math.max(1, views.length);
  return views.map((_, i) => ({ x: Math.round((i * w) / n), width: Math.round(((i + 1) * w) / n) -
    Math.round((i * w) / n), height: h }));
}

function render() {
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== w || canvas.height !== h) renderer.setSize(w, h, false);
  const rects = viewRects();
  renderer.setScissorTest(true);
  views.forEach((v, i) => {
    const r = rects[i];
    camera.aspect = r.width / r.height;
    camera.updateProjectionMatrix();
    v.scene.updateMatrixWorld(true);
    v.updateBoneLines();
    renderer.setViewport(r.x, 0, r.width, r.height);
    renderer.setScissor(r.x, 0, r.width, r.height);
    renderer.setClearColor(0x000000, 0);
    renderer.render(v.scene, camera);
  });
  ++renders;
}

function pose() {
  for (const v of views) v.mixer.setTime(state.time);
  render();
}

function showFrame() {
  const d = clipDef()?.duration ?? 0;
  $('frame-label').textContent = `frame ${state.frame} / ${frameCount() - 1} · ` +
    `${state.time.toFixed(2)} s / ${d.toFixed(2)} s`;
}

function setFrame(f) {
  state.frame = Math.max(0, Math.min(frameCount() - 1, f));
  state.time = Math.min(clipDef()?.duration ?? 0, state.frame / FPS);
  $('scrubber').value = String(state.frame);
  showFrame();
  pose();
}

function setClip(ci) {
  state.clip = ci;
  for (const v of views) {
    v.setClip(data.clips[ci], state.still);
    v.setHeat(state.heat, ci, !state.bodyFull);
  }
  $('clip').value = String(ci);
  $('scrubber').max = String(frameCount() - 1);
  setFrame(0);
}

function tick(now) {
  if (!state.playing) return;
  if (last !== null) {
    const d = clipDef()?.duration ?? 0;
    state.time += ((now - last) / 1000) * state.speed;
    if (d > 0) state.time %= d; else state.time = 0;
    state.frame = Math.floor(state.time * FPS);
    $('scrubber').value = String(state.frame);
    showFrame();
    for (const v of views) v.mixer.setTime(state.time);
    render();
  }
  last = now;
  requestAnimationFrame(tick);
}

/// The floor's height: the report's (the bake's, characters[].bake.floor_y: the lowest
/// bind-pose point of the body, or --floor), else the lowest point of the rigs at rest.
function floorHeight(box) {
  const ys = (data.report?.characters ?? []).map((c) => c.bake?.floor_y)
    .filter((y) => typeof y === 'number');
  if (ys.length) return { y: Math.min(...ys), source: 'report' };
  return { y: box.min.y, source: 'lowest point' };
}

function addFloors() {
  const box = new THREE.Box3();
  for (const v of views) v.scene.updateMatrixWorld(true), box.expandByObject(v.scene);
  if (box.isEmpty()) return;
  const size = box.getSize(new THREE.Vector3());
  const floor = floorHeight(box);
  for (const v of views) v.addFloor(floor.y, box.getCenter(new THREE.Vector3()),
    2.5 * Math.max(size.x, size.z, size.y));
  floorInfo = floor;
}

function frameCamera() {
  const box = new THREE.Box3();
  for (const v of views) v.scene.updateMatrixWorld(true), box.expandByObject(v.scene);
  const center = box.getCenter(new THREE.Vector3());
  const radius = Math.max(1e-6, box.getSize(new THREE.Vector3()).length() / 2);
  const rect = viewRects()[0];
  const vfov = THREE.MathUtils.degToRad(camera.fov);
  const hfov = 2 * Math.atan(Math.tan(vfov / 2) * (rect.width / rect.height));
  const dist = (radius / Math.sin(Math.min(vfov, hfov) / 2)) * 1.02;
  // From the side and a little behind and above: a tail points back (-Z for glTF's +Z front).
  const dir = new THREE.Vector3(1, 0.3, -0.55).normalize();
  camera.position.copy(center).addScaledVector(dir, dist);
  camera.near = dist / 100;
  camera.far = dist * 10;
  camera.lookAt(center);
  controls.target.copy(center);
  controls.update();
}

/// What the page's re-rigged skin is, as its labels say it: "Hair" when every baked chain is
/// hair (the report's chain_records), "Chain" when tails and hair mix, else "Tail".
function chainWord() {
  const kinds = new Set((data.report?.characters ?? []).flatMap((c) =>
    (c.chain_records ?? []).filter((r) => r.baked).map((r) => r.kind)));
  if (kinds.size > 1) return 'Chain';
  return kinds.has('hair') ? 'Hair' : 'Tail';
}

function bindControls() {
  const word = chainWord();
  $('still').parentElement.lastChild.textContent = ` ${word} motion off`;
  $('tail-only').parentElement.lastChild.textContent = ` ${word} only`;
  const clip = $('clip');
  data.clips.forEach((c, i) => clip.add(new Option(c.name, String(i))));
  clip.addEventListener('change', () => setClip(Number(clip.value)));
  $('scrubber').addEventListener('input', (e) => setFrame(Number(e.target.value)));
  $('play').addEventListener('click', () => {
    state.playing = !state.playing;
    $('play').textContent = state.playing ? 'Pause' : 'Play';
    last = null;
    if (state.playing) requestAnimationFrame(tick); else setFrame(state.frame);
  });
  $('speed').addEventListener('change', (e) => { state.speed = Number(e.target.value); });
  $('bones').addEventListener('change', (e) => {
    state.bones = e.target.checked;
    for (const v of views) v.lines.visible = state.bones;
    render();
  });
  $('still').addEventListener('change', (e) => {
    state.still = e.target.checked;
    for (const v of views) v.setClip(clipDef(), state.still);
    pose();
  });
  $('tail-only').addEventListener('change', (e) => {
    state.tailOnly = e.target.checked;
    for (const v of views) v.setTailOnly(state.tailOnly);
    render();
  });
  $('heat').addEventListener('change', (e) => {
    state.heat = e.target.checked;
    $('legend').hidden = !state.heat;
    for (const v of views) v.setHeat(state.heat, state.clip, !state.bodyFull);
    render();
  });
  $('floor').addEventListener('change', (e) => {
    for (const v of views) if (v.floor) v.floor.visible = e.target.checked;
    render();
  });
  $('body-full').addEventListener('change', (e) => {
    state.bodyFull = e.target.checked;
    for (const v of views) v.setHeat(state.heat, state.clip, !state.bodyFull);
    render();
  });
  $('torn-above').textContent = String(data.torn_above);
  $('torn-below').textContent = String(data.torn_below);
  window.addEventListener('resize', () => render());
}

/// The hook the browser tests use (docs/html-page.md): state, and each view's tail box.
window.retailTest = {
  ready: false,
  error: null,
  data,
  renders: () => renders,
  views: () => views.map((v) => v.def.key),
  /// The meshes of view `key` with vertices (0 when it shows none).
  meshes(key) {
    const v = views.find((w) => w.def.key === key);
    return v ? v.meshes.filter((m) => m.mesh.geometry.getAttribute('position')?.count > 0).length
      : 0;
  },
  /// How many views show a mesh whose material has a texture image loaded.
  textured: () => views.filter((v) => v.meshes.some((m) => (m.material?.map?.image?.width ?? 0) > 0))
    .length,
  state: () => ({ ...state, frames: frameCount(), duration: clipDef()?.duration ?? 0 }),
  /// The body's heat in view `key` as shown: { vertices, torn, shownTorn } (View.bodyHeat).
  bodyHeat(key) {
    return views.find((v) => v.def.key === key)?.bodyHeat() ?? null;
  },
  /// The floor in view `key`: its height, where it came from ('report' or 'lowest point'),
  /// whether it is in the scene and visible (the Floor toggle).
  floor(key) {
    const i = views.findIndex((v) => v.def.key === key);
    const f = views[i]?.floor;
    if (!f) return null;
    let inScene = false;
    views[i].scene.traverse((o) => { if (o === f) inScene = true; });
    return { y: floorInfo.y, source: floorInfo.source, inScene, visible: f.visible,
      name: f.name };
  },
  /// The tail's screen box in view `key`: page CSS pixels (x, y, width, height) and the same
  /// box in canvas pixels (`canvas`), or null.
  tailBox(key) {
    const i = views.findIndex((v) => v.def.key === key);
    if (i < 0) return null;
    const box = views[i].tailBox(cameraFor(i), viewRects()[i]);
    if (!box) return null;
    const r = canvas.getBoundingClientRect(), sx = r.width / canvas.width,
      sy = r.height / canvas.height;
    return { x: r.left + window.scrollX + box.x * sx, y: r.top + window.scrollY + box.y * sy,
      width: box.width * sx, height: box.height * sy, canvas: box };
  },
};

function cameraFor(i) {
  const r = viewRects()[i];
  camera.aspect = r.width / r.height;
  camera.updateProjectionMatrix();
  return camera;
}

async function main() {
  renderReport(data, $('report'), $('subtitle'));
  bindControls();
  const loaded = await Promise.all(data.views.map(parseModel));
  blobs.clear(); // every view holds its own copies now
  views = data.views.map((def, i) => new View(def, loaded[i]));
  $('labels').replaceChildren(...data.views.map((d) => {
    const el = document.createElement('div');
    el.textContent = d.label;
    return el;
  }));
  controls = new OrbitControls(camera, canvas);
  controls.addEventListener('change', () => { if (!state.playing) render(); });
  render();
  frameCamera();
  addFloors();
  if (data.clips.length) setClip(0); else render();
  $('status').textContent = data.clips.length ? '' : 'This file has no clips.';
  window.retailTest.ready = true;
}

main().catch((e) => {
  window.retailTest.error = String(e && e.message ? e.message : e);
  $('status').textContent = `Could not show the rigs: ${window.retailTest.error}`;
  $('status').className = 'error';
  console.error(e);
});
