# Blender checks one retail output (issue 6): run headless as
#   blender -b --factory-startup --python check_output.py -- OUT.glb REEXPORT.glb [PREFIX PARENT]
# Import succeeds; the armature has Tail_1..Tail_K (or PREFIX1..PREFIXK: Hair_1_ for a --hair
# chain) in a chain under the hips bone (or the bone PARENT); the chain's vertices carry vertex
# groups with the weights retail wrote (within 1/255); every action has F-curves for the chain's
# bones; playing the Walk action moves them; re-export to GLB succeeds.
# Prints one "blender-check: ..." line per file and exits 1 on the first failed check.
import json
import struct
import sys

import numpy

# Debian's numpy 1.24 removed numpy.bool, which Blender 3.4's glTF importer still uses.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

import bpy  # noqa: E402

COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
FORMATS = {5121: ("B", 1, 255.0), 5123: ("H", 2, 65535.0), 5125: ("I", 4, None), 5126: ("f", 4, None)}


def fail(message):
    print("blender-check: FAIL: " + message, flush=True)
    sys.exit(1)


def read_glb(path):
    data = open(path, "rb").read()
    json_len = struct.unpack_from("<I", data, 12)[0]
    gltf = json.loads(data[20:20 + json_len])
    off = 20 + json_len
    bin_len = struct.unpack_from("<I", data, off)[0]
    return gltf, data[off + 8:off + 8 + bin_len]


def accessor(gltf, binary, index):
    a = gltf["accessors"][index]
    view = gltf["bufferViews"][a["bufferView"]]
    fmt, size, norm = FORMATS[a["componentType"]]
    n = COMPONENTS[a["type"]]
    stride = view.get("byteStride", n * size)
    base = view.get("byteOffset", 0) + a.get("byteOffset", 0)
    rows = []
    for k in range(a["count"]):
        row = struct.unpack_from("<%d%s" % (n, fmt), binary, base + k * stride)
        rows.append([x / norm for x in row] if norm and a.get("normalized") else list(row))
    return rows


def expected_weights(gltf, binary):
    """Per skinned mesh node name: per vertex (primitives concatenated), {joint name: weight}."""
    out = {}
    for node in gltf["nodes"]:
        if "mesh" not in node or "skin" not in node:
            continue
        joints = [gltf["nodes"][j].get("name", "") for j in gltf["skins"][node["skin"]]["joints"]]
        verts = []
        for prim in gltf["meshes"][node["mesh"]]["primitives"]:
            attrs = prim["attributes"]
            J = accessor(gltf, binary, attrs["JOINTS_0"])
            W = accessor(gltf, binary, attrs["WEIGHTS_0"])
            for j, w in zip(J, W):
                verts.append({joints[int(a)]: b for a, b in zip(j, w) if b > 0})
        out[node.get("name", "")] = verts
    return out


def main():
    args = sys.argv[sys.argv.index("--") + 1:]
    path, reexport = args[0], args[1]
    prefix = args[2] if len(args) > 2 else "Tail_"
    parent_wanted = args[3] if len(args) > 3 else None
    what = "hair" if prefix.startswith("Hair") else "tail"
    gltf, binary = read_glb(path)
    names = [n.get("name", "") for n in gltf["nodes"]]
    tail = sorted([n for n in names if n.startswith(prefix) and n[len(prefix):].isdigit()],
                  key=lambda n: int(n[len(prefix):]))
    if parent_wanted is not None and not tail:
        fail("%s: no %s1 bone in the file" % (path, prefix))
    if not tail:  # a file with no tail (godette.vrm): it imports and re-exports
        bpy.ops.wm.read_factory_settings(use_empty=True)
        if "FINISHED" not in bpy.ops.import_scene.gltf(filepath=path):
            fail("%s: import failed" % path)
        meshes = sum(1 for o in bpy.context.scene.objects if o.type == "MESH")
        if "FINISHED" not in bpy.ops.export_scene.gltf(filepath=reexport, export_format="GLB"):
            fail("%s: export failed" % path)
        print("blender-check: ok: %s: no tail; %d meshes imported, %d actions, re-exported" %
              (path, meshes, len(bpy.data.actions)), flush=True)
        return
    hips = next(names[i] for i, n in enumerate(gltf["nodes"])
                if any(names[c] == tail[0] for c in n.get("children", [])))
    if parent_wanted is not None and hips != parent_wanted:
        fail("%s: %s hangs from %s in the file, not %s" % (path, tail[0], hips, parent_wanted))

    bpy.ops.wm.read_factory_settings(use_empty=True)
    result = bpy.ops.import_scene.gltf(filepath=path)
    if "FINISHED" not in result:
        fail("%s: import returned %s" % (path, result))
    arms = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
    if not arms:
        fail("%s: no armature imported" % path)
    arm = arms[0]
    bones = arm.data.bones
    # The chain: Tail_1 under the hips, each next bone under the previous one.
    for i, name in enumerate(tail):
        if name not in bones:
            fail("%s: bone %s missing" % (path, name))
        parent = bones[name].parent.name if bones[name].parent else None
        want = hips if i == 0 else tail[i - 1]
        if parent != want:
            fail("%s: %s is parented to %s, not %s" % (path, name, parent, want))
    # Vertex groups: the weights retail wrote on the tail bones, within 1/255.
    expected = expected_weights(gltf, binary)
    checked = 0
    worst = 0.0
    for obj in bpy.context.scene.objects:
        if obj.type != "MESH" or obj.name not in expected:
            continue
        want = expected[obj.name]
        if len(obj.data.vertices) != len(want):
            fail("%s: %s has %d vertices in Blender, %d in the file" %
                 (path, obj.name, len(obj.data.vertices), len(want)))
        groups = {g.index: g.name for g in obj.vertex_groups}
        for v in obj.data.vertices:
            got = {groups[g.group]: g.weight for g in v.groups if g.weight > 0}
            w = want[v.index]
            for bone in tail:
                a, b = got.get(bone, 0.0), w.get(bone, 0.0)
                if a or b:
                    worst = max(worst, abs(a - b))
                    checked += 1
    if checked == 0:
        fail("%s: no %s weights found in any vertex group" % (path, what))
    if worst > 1.0 / 255 + 1e-6:
        fail("%s: a %s weight differs from the file by %.5f" % (path, what, worst))
    # Every action animates the tail bones.
    actions = list(bpy.data.actions)
    if len(actions) < len(gltf.get("animations", [])):
        fail("%s: %d actions for %d clips" % (path, len(actions), len(gltf["animations"])))
    for act in actions:
        animated = {fc.data_path.split('"')[1] for fc in act.fcurves if fc.data_path.startswith("pose.bones")}
        missing = [b for b in tail if b not in animated]
        if missing:
            fail("%s: action %s has no F-curves for %s" % (path, act.name, ", ".join(missing)))
    # Playing Walk moves the tail.
    walk = next((a for a in actions if "Walk" in a.name), None)
    moved = 0.0
    if walk is not None:
        if arm.animation_data is None:
            arm.animation_data_create()
        arm.animation_data.action = walk
        scene = bpy.context.scene
        start, end = int(walk.frame_range[0]), int(walk.frame_range[1])
        tip = arm.pose.bones[tail[-1]]
        scene.frame_set(start)
        first = tip.matrix.to_quaternion()
        for frame in range(start, end + 1, max(1, (end - start) // 12)):
            scene.frame_set(frame)
            moved = max(moved, first.rotation_difference(tip.matrix.to_quaternion()).angle)
        if moved < 1e-3:
            fail("%s: the %s tip does not move in %s" % (path, what, walk.name))
    # Re-export.
    result = bpy.ops.export_scene.gltf(filepath=reexport, export_format="GLB")
    if "FINISHED" not in result:
        fail("%s: export returned %s" % (path, result))
    print("blender-check: ok: %s: %d %s bones under %s, %d %s weights within %.4f, %d actions, "
          "Walk tip moves %.1f deg, re-exported" %
          (path, len(tail), what, hips, checked, what, worst, len(actions), moved * 57.2958),
          flush=True)


try:
    main()
except SystemExit:
    raise
except Exception as e:  # anything unexpected is a failed check, not a hang
    fail("%s: %s" % (type(e).__name__, e))
