# The retail Blender add-on end to end (issue 18 point 3, issue 32 point 8), headless in
# Debian's Blender 3.4, with no numpy patch of its own (the add-on brings the shim):
#   blender -b --factory-startup --python addon_test.py -- ZIP RETAIL IN.glb KEEP_DIR
#     [errors | generated]
# "generated": IN.glb is make_test_rig --thick-base --ponytail, whose tail the harm check
# rejects; see generated_case. Otherwise:
# Installs the add-on from its zip and enables it, points its preference at RETAIL, imports
# IN.glb, selects its armature and runs "Fix tail with retail". Checks: the originals are still
# there; a new collection (the one the panel names) holds an armature with Tail_1..Tail_K,
# Tail_1 under the hips bone and each next bone under the previous, and meshes deformed by it;
# their Tail_* vertex groups equal the weights in retail's output (kept in KEEP_DIR by the
# preference) within 1/255, some non-zero; the output has as many clips as IN.glb and the scene
# one new action per clip, each with rotation keys for every weighted tail bone, Tail_1's
# changing; the panel's summary (report module, drawn through a stand-in layout) says a
# tail_chain piece was found, names Tail_1 and the worst clip's torn share went down; the
# temporary folder is gone.
# With "errors": first nothing selected, a missing binary and a binary that fails (exit 3) are
# reported with their message in the panel, import nothing and leave no temporary folder, and
# the preferences' "Check retail" refuses a missing binary and accepts RETAIL; after
# the main run, the mesh names --tail would get match the exported GLB, a second run with
# --clips Walk and --carry 40 shows them on its command line and measures only Walk, exports
# the same bytes as the first (no clips from the first result), and "Replace originals" removes
# the armature and its meshes but not the first result.
# Prints one "addon-test: ..." line; exits 1 on the first failed check.
import json
import os
import struct
import sys
import tempfile
import webbrowser

import bpy
import numpy

# No numpy shim here: Debian's numpy 1.24 lacks numpy.bool, which Blender 3.4's glTF importer
# uses; the add-on must put it back itself (checked in enable_addon).
NUMPY_BOOL_AT_START = hasattr(numpy, "bool")

MODULE = "retail_blender"


def fail(message):
    print("addon-test: FAIL: " + message, flush=True)
    sys.exit(1)


def check(cond, message):
    if not cond:
        fail(message)


def read_glb(path):
    data = open(path, "rb").read()
    n = struct.unpack_from("<I", data, 12)[0]
    gltf = json.loads(data[20:20 + n])
    off = 20 + n
    return gltf, data[off + 8:off + 8 + struct.unpack_from("<I", data, off)[0]]


def accessor(gltf, binary, index):
    formats = {5121: ("B", 1, 255.0), 5123: ("H", 2, 65535.0), 5126: ("f", 4, None)}
    a = gltf["accessors"][index]
    view = gltf["bufferViews"][a["bufferView"]]
    fmt, size, norm = formats[a["componentType"]]
    stride = view.get("byteStride", 4 * size)
    base = view.get("byteOffset", 0) + a.get("byteOffset", 0)
    rows = []
    for k in range(a["count"]):
        row = struct.unpack_from("<4" + fmt, binary, base + k * stride)
        rows.append([x / norm for x in row] if norm and a.get("normalized") else list(row))
    return rows


def file_weights(gltf, binary):
    """Per mesh node name: per vertex (primitives concatenated), {joint name: weight}."""
    out = {}
    for node in gltf["nodes"]:
        if "mesh" in node and "skin" in node:
            joints = [gltf["nodes"][j].get("name", "") for j in gltf["skins"][node["skin"]]["joints"]]
            verts = []
            for prim in gltf["meshes"][node["mesh"]]["primitives"]:
                J = accessor(gltf, binary, prim["attributes"]["JOINTS_0"])
                W = accessor(gltf, binary, prim["attributes"]["WEIGHTS_0"])
                verts += [{joints[int(j)]: w for j, w in zip(js, ws) if w > 0} for js, ws in zip(J, W)]
            out[node.get("name", "")] = verts
    return out


def snapshot():
    return ({o.name: o.as_pointer() for o in bpy.data.objects},
            {c.name for c in bpy.data.collections}, {a.name for a in bpy.data.actions})


def temp_dirs():
    return {d for d in os.listdir(tempfile.gettempdir()) if d.startswith("retail-blender-")}


def run_operator():
    try:
        return bpy.ops.retail.fix_tail()
    except RuntimeError as e:  # an operator that reports an error raises here in background
        return {"RAISED: %s" % e}


def select_only(objects):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    for o in objects:
        o.select_set(True)
    bpy.context.view_layer.objects.active = objects[0] if objects else None


def expect_error(prefs, arm, binary, selected, want, name):
    prefs.retail_path = binary
    select_only([arm] if selected else [])
    before = snapshot()
    result = run_operator()
    check("FINISHED" not in result, "%s: the operator finished (%s)" % (name, result))
    error = bpy.context.scene.retail.last_error
    check(want in error, "%s: the error says %r, not %r" % (name, error, want))
    check(snapshot() == before, "%s: objects, collections or actions changed" % name)
    check(not bpy.context.scene.retail.last_summary, "%s: a summary is shown" % name)
    check("Last run failed" in drawn_panel(), "%s: the panel does not show the failure" % name)
    return error


class Layout:
    """Stands in for a UILayout (no UI in background mode): records the labels drawn."""

    def __init__(self, labels):
        self.labels, self.alert, self.active = labels, False, True

    def _child(self, *args, **kwargs):
        return Layout(self.labels)

    row = column = box = split = _child

    def label(self, text="", icon='NONE', **kwargs):
        icons = bpy.types.UILayout.bl_rna.functions["label"].parameters["icon"].enum_items
        check(icon in icons.keys(), "the panel draws an unknown icon %s" % icon)
        self.labels.append(text)

    def prop(self, data, name, **kwargs):
        check(hasattr(data, name), "the panel draws a missing property %s" % name)

    def operator(self, idname, **kwargs):
        module, name = idname.split(".")
        check(hasattr(getattr(bpy.ops, module), name), "the panel draws a missing operator " + idname)
        self.labels.append("[%s]" % idname)


def drawn_panel():
    """The labels the sidebar panel draws now."""
    labels = []
    panel = sys.modules[MODULE + ".panel"].RETAIL_PT_panel
    panel.draw(type("Panel", (), {"layout": Layout(labels)})(), bpy.context)
    return labels


def options_and_replace(arm, keep, first, objects_before, input_clips):
    """The panel's options reach retail's command line, --tail gets the exported mesh name, and
    "Replace originals" removes the armature and its meshes once the result is in."""
    operators = sys.modules[MODULE + ".operators"]
    meshes = operators.meshes_of(arm, bpy.context.scene)
    kept_input = [f for f in os.listdir(keep) if f.endswith(".glb") and not f.endswith(".retail.glb")]
    check(len(kept_input) == 1, "kept inputs %s" % kept_input)
    first_export = open(os.path.join(keep, kept_input[0]), "rb").read()
    for m in meshes:
        got = operators.tail_mesh_name(os.path.join(keep, kept_input[0]), m)
        check(got == m.data.name, "--tail for %s would be %r, not %r" % (m.name, got, m.data.name))
    settings = bpy.context.scene.retail
    settings.clips_mode, settings.clips = 'LIST', " Walk "
    settings.use_carry, settings.carry = True, 40.0
    settings.replace_originals = True
    settings.on_rerun = 'ADD'  # the first result stays (checked below)
    gone = [arm.name] + [o.name for o in arm.children_recursive] + [m.name for m in meshes]
    select_only([arm])
    collections_before = {c.name for c in bpy.data.collections}
    result = run_operator()
    check(result == {"FINISHED"}, "options run returned %s (%s)" % (result, settings.last_error))
    command = settings.last_command.split()
    for flag, value in (("--mode", "chain"), ("--carry", "40"), ("--clips", "Walk")):
        check(flag in command and command[command.index(flag) + 1] == value,
              "the command line lacks %s %s: %s" % (flag, value, settings.last_command))
    check("--tail" not in command, "--tail without a tail mesh: %s" % settings.last_command)
    summary = json.loads(settings.last_summary)
    clip = summary["characters"][0]["worst_clip"]["clip"]
    check(clip.rsplit("|", 1)[-1] == "Walk", "--clips Walk measured %s" % clip)
    # The same armature exports the same bytes, though the first result is in the scene now.
    check(open(os.path.join(keep, kept_input[0]), "rb").read() == first_export,
          "second run: the exported GLB differs from the first run's")
    # The first result's actions (in the scene now) are not exported as clips of this armature.
    exported = [f for f in os.listdir(keep) if f.endswith(".retail.glb")]
    clips = read_glb(os.path.join(keep, exported[0]))[0].get("animations", [])
    check(len(clips) == input_clips, "second run: %d clips exported, the file has %d: %s" %
          (len(clips), input_clips, [c.get("name") for c in clips]))
    for name in gone:
        check(name not in bpy.data.objects, "Replace originals left %s" % name)
    for name in objects_before:
        check(name in gone or name in bpy.data.objects, "Replace originals removed %s" % name)
    check(first.name in bpy.data.collections and any(o.type == "ARMATURE" for o in first.all_objects),
          "Replace originals touched the first result")
    new = [c for c in bpy.data.collections if c.name not in collections_before]
    check(len(new) == 1 and any(o.type == "ARMATURE" and "Tail_1" in o.data.bones
                                for o in new[0].all_objects),
          "Replace originals: no new collection with the tail chain")
    return ("--clips/--carry/--tail mapped, the same export twice, Replace originals removed %d "
            "objects" % len(gone))


def enable_addon(zip_path, keep):
    """Installs and enables the add-on from its zip; returns its preferences. Where this numpy
    lacks numpy.bool (Debian's 1.24), enabling the add-on puts it back."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    check("FINISHED" in bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True),
          "addon_install failed")
    check("FINISHED" in bpy.ops.preferences.addon_enable(module=MODULE), "addon_enable failed")
    check(hasattr(numpy, "bool"), "the enabled add-on did not put back numpy.bool")
    prefs = bpy.context.preferences.addons[MODULE].preferences
    prefs.keep_dir = keep
    operators = sys.modules[MODULE + ".operators"]
    dropped = set(operators.EXPORT_OPTIONS) - set(operators.export_options())
    check(not dropped, "this Blender's glTF exporter lacks %s" % sorted(dropped))
    return prefs


def import_input(path):
    """Imports IN.glb with Blender's importer (working through the add-on's shim); returns its
    armature. Then takes numpy.bool away again where the add-on had to add it, so the
    operator's own import must put it back."""
    name = os.path.basename(path)
    check("FINISHED" in bpy.ops.import_scene.gltf(filepath=path), "%s: import failed" % name)
    arms = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
    check(len(arms) == 1, "%s: %d armatures in the input" % (name, len(arms)))
    if not NUMPY_BOOL_AT_START:
        del numpy.bool
    return arms[0]


def result_collections(arm):
    return {c.name for c in bpy.data.collections if c.get("retail_source") == arm.name}


def scene_counts():
    return (len(bpy.data.collections), len(bpy.data.objects), len(bpy.data.actions),
            len(bpy.data.meshes), len(bpy.data.armatures))


def wrapped_retail(retail, keep, name, args):
    """A wrapper script of `retail` that appends `args` to every run."""
    path = os.path.join(keep, name)
    with open(path, "w") as f:
        f.write('#!/bin/sh\nexec "%s" "$@" %s\n' % (retail, args))
    os.chmod(path, 0o755)
    return path


def unlimited_retail(retail, keep):
    """A wrapper of `retail` whose spring has no skin limit (--min-skin-ratio 0): the thick
    haunch's first chain then tears its seam, and the harm check steps it down."""
    return wrapped_retail(retail, keep, "retail-unlimited", "--min-skin-ratio 0")


def strict_retail(retail, keep):
    """A wrapper of `retail` with no skin limit on the spring (--min-skin-ratio 0) that judges
    with no noise floor to speak of (--harm-noise 0: 3 edge-samples), without the bending-less
    step (--harm-skin-ratio 0) and without held clips (--no-hold), so the harm check refuses the
    thick haunch's chain at every step."""
    return wrapped_retail(retail, keep, "retail-strict",
                          "--harm-noise 0 --harm-skin-ratio 0 --min-skin-ratio 0 --no-hold")


def generated_case(prefs, retail, path, keep):
    """The generated rig with a thick haunch (make_test_rig --thick-base --ponytail): detection
    finds its tail; without the spring's skin limit (unlimited_retail) the harm check keeps its
    chain bending less, and the message says it stepped it down and why. Judged strictly (strict_retail) it rejects the chain: the message
    says rejected and why; a second run replaces the first result (no duplicate collection,
    objects or actions); "Add" adds a second result beside it; a run with Hair "Ponytail" grows
    Hair_1_* under the head; "Open QA page" opens the page retail wrote."""
    name = os.path.basename(path)
    arm = import_input(path)
    prefs.retail_path = unlimited_retail(retail, keep)
    settings = bpy.context.scene.retail
    select_only([arm])
    check(run_operator() == {"FINISHED"}, "%s: first run: %s" % (name, settings.last_error))
    message = settings.last_message
    print("message: " + message, flush=True)
    check("added the tail chain" in message and "harm check stepped it down" in message and
          "bending past" in message, "%s: the message does not say the harm check stepped "
          "the chain down and why: %s" % (name, message))
    settings.on_rerun = 'REPLACE'
    prefs.retail_path = strict_retail(retail, keep)
    select_only([arm])
    result = run_operator()
    check(result == {"FINISHED"}, "%s: operator returned %s (%s)" %
          (name, result, settings.last_error))
    message = settings.last_message
    print("message: " + message, flush=True)
    check("harm check rejected" in message and "newly tears" in message and
          "found no tail" not in message, "%s: the message does not say the harm check rejected "
          "the tail and why: %s" % (name, message))
    check("skin left torn" in message, "%s: the message omits the skin left torn: %s" %
          (name, message))
    shown = " | ".join(drawn_panel())
    check("tail rejected by the harm check" in shown and "[retail.open_page]" in shown,
          "%s: the panel does not show the rejection: %s" % (name, shown))
    first = scene_counts()
    check(result_collections(arm) == {arm.name + " (retail)"}, "%s: results %s" %
          (name, result_collections(arm)))

    # The QA page: written, offered, opened through webbrowser.open with its file URL.
    page = settings.last_page
    check(page and os.path.isfile(page) and "retail QA" in open(page, encoding="utf-8").read(400),
          "%s: no QA page at %r" % (name, page))
    opened = []
    webbrowser.open = lambda url, *a, **k: opened.append(url) or True
    check(bpy.ops.retail.open_page() == {"FINISHED"} and opened and
          opened[0].startswith("file://") and opened[0].endswith(os.path.basename(page)),
          "%s: Open QA page opened %s" % (name, opened))

    # Run again (Replace previous, the default): the same collections, objects and actions.
    select_only([arm])
    check(run_operator() == {"FINISHED"}, "%s: second run: %s" % (name, settings.last_error))
    check(result_collections(arm) == {arm.name + " (retail)"} and scene_counts() == first,
          "%s: second run: results %s, counts %s (first run: %s)" %
          (name, result_collections(arm), scene_counts(), first))
    # "Add": a second result beside the first, under its own name.
    settings.on_rerun = 'ADD'
    select_only([arm])
    check(run_operator() == {"FINISHED"}, "%s: add run: %s" % (name, settings.last_error))
    want = [arm.name + " (retail)", arm.name + " (retail 2)"]
    check(result_collections(arm) == set(want), "%s: add run: results %s" %
          (name, result_collections(arm)))
    # Hair: replaces both results with one that has the ponytail's chain under the head.
    settings.on_rerun, settings.hair = 'REPLACE', "Ponytail"
    select_only([arm])
    check(run_operator() == {"FINISHED"}, "%s: hair run: %s" % (name, settings.last_error))
    check("--hair Ponytail" in settings.last_command, "hair: command %s" % settings.last_command)
    check(result_collections(arm) == {arm.name + " (retail)"} and scene_counts() == first,
          "%s: hair run: results %s, counts %s (first run: %s)" %
          (name, result_collections(arm), scene_counts(), first))
    coll = bpy.data.collections[settings.last_collection]
    new_arm = next(o for o in coll.all_objects if o.type == "ARMATURE")
    hair = [b for b in new_arm.data.bones if b.name.startswith("Hair_1_")]
    check(len(hair) >= 2 and hair[0].parent is not None and "Head" in hair[0].parent.name,
          "%s: hair bones %s" % (name, [(b.name, b.parent and b.parent.name) for b in hair]))
    check("hair chain" in settings.last_message and "harm check rejected" in settings.last_message,
          "%s: hair run message: %s" % (name, settings.last_message))
    # A retail built without three.js refuses --html (exit 3, saying so): the run still
    # imports its result, without a page, and says so.
    no_three = os.path.join(keep, "retail-without-three")
    with open(no_three, "w") as f:
        f.write('#!/bin/sh\nfor a in "$@"; do [ "$a" = --html ] && { echo "error: x.glb: this '
                'retail was built without three.js, which --html inlines into the page" >&2; '
                'exit 3; }; done\nexec "%s" "$@"\n' % strict_retail(retail, keep))
    os.chmod(no_three, 0o755)
    prefs.retail_path = no_three
    select_only([arm])
    check(run_operator() == {"FINISHED"}, "%s: run without three.js: %s" %
          (name, settings.last_error))
    check("no QA page" in settings.last_message and not settings.last_page and
          "--html" not in settings.last_command and scene_counts() == first,
          "%s: run without three.js: message %r, page %r, command %s" %
          (name, settings.last_message, settings.last_page, settings.last_command))
    print("addon-test: ok: %s: the harm check's step down (bending less) and, judged "
          "strictly, its rejection reported with why, no duplicate after re-running, Add adds "
          "'%s', %d hair bones under %s, QA page opened (%s), a retail without three.js "
          "imports without a page" %
          (name, want[1], len(hair), hair[0].parent.name, opened[0]), flush=True)


def main():
    args = sys.argv[sys.argv.index("--") + 1:]
    zip_path, retail, path, keep = args[:4]
    errors = "errors" in args[4:]
    name = os.path.basename(path)
    prefs = enable_addon(zip_path, keep)
    if "generated" in args[4:]:
        generated_case(prefs, retail, path, keep)
        return
    arm = import_input(path)
    temps = temp_dirs()

    notes = []
    if errors:
        expect_error(prefs, arm, retail, False, "nothing selected", "nothing selected")
        missing = os.path.join(keep, "no-such-retail")
        expect_error(prefs, arm, missing, True, "not found", "missing binary")
        fake = os.path.join(keep, "failing-retail")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'retail: info: starting' >&2\n"
                    "echo 'error: in.glb: unsupported for the test' >&2\nexit 3\n")
        os.chmod(fake, 0o755)
        err = expect_error(prefs, arm, fake, True, "unsupported for the test", "failing binary")
        check("exit 3" in err, "failing binary: the error does not give the exit code: " + err)
        check(temp_dirs() == temps, "failing binary: temporary files left behind")
        notes.append("3 error cases reported, nothing imported")
        prefs.retail_path = os.path.join(keep, "no-such-retail")
        try:
            checked_missing = bpy.ops.retail.check_binary()
        except RuntimeError:  # the operator's error report, raised in background mode
            checked_missing = {"CANCELLED"}
        check("FINISHED" not in checked_missing, "Check retail accepts a missing binary")
        prefs.retail_path = retail
        check(bpy.ops.retail.check_binary() == {"FINISHED"}, "Check retail refuses " + retail)

    prefs.retail_path = retail
    select_only([arm])
    objects_before, collections_before, actions_before = snapshot()
    result = run_operator()
    check(result == {"FINISHED"}, "%s: operator returned %s (%s)" %
          (name, result, bpy.context.scene.retail.last_error))
    check(temp_dirs() == temps, "%s: temporary files left behind" % name)

    # The originals stay.
    for obj_name, pointer in objects_before.items():
        check(obj_name in bpy.data.objects and bpy.data.objects[obj_name].as_pointer() == pointer,
              "%s: original object %s is gone" % (name, obj_name))

    # The result: its own collection, an armature with the tail chain under the hips.
    settings = bpy.context.scene.retail
    new_collections = {c.name for c in bpy.data.collections} - collections_before
    check(new_collections == {settings.last_collection},
          "%s: new collections %s, the panel names %r" % (name, new_collections,
                                                          settings.last_collection))
    coll = bpy.data.collections[settings.last_collection]
    check(coll.name.startswith(arm.name), "%s: collection %s not named after %s" %
          (name, coll.name, arm.name))
    new_arms = [o for o in coll.all_objects if o.type == "ARMATURE"]
    check(len(new_arms) == 1, "%s: %d armatures in %s" % (name, len(new_arms), coll.name))
    new_arm = new_arms[0]
    check(all(o.name not in objects_before for o in coll.all_objects),
          "%s: the collection holds an original object" % name)

    out_glb = [f for f in os.listdir(keep) if f.endswith(".retail.glb")]
    check(len(out_glb) == 1, "%s: kept outputs %s" % (name, out_glb))
    gltf, binary = read_glb(os.path.join(keep, out_glb[0]))
    names = [n.get("name", "") for n in gltf["nodes"]]
    tail = sorted((n for n in names if n.startswith("Tail_") and n != "Tail_End"),
                  key=lambda n: int(n.split("_")[1]))
    check(tail and tail[0] == "Tail_1", "%s: retail's output has no Tail_1 (%s)" % (name, tail))
    hips = next(names[i] for i, n in enumerate(gltf["nodes"])
                if any(names[c] == "Tail_1" for c in n.get("children", [])))
    bones = new_arm.data.bones
    for i, bone in enumerate(tail):
        check(bone in bones, "%s: bone %s missing from %s" % (name, bone, new_arm.name))
        parent = bones[bone].parent.name if bones[bone].parent else None
        want = hips if i == 0 else tail[i - 1]
        check(parent == want, "%s: %s is parented to %s, not %s" % (name, bone, parent, want))

    # Vertex groups: the file's tail weights, within 1/255, some non-zero.
    expected = file_weights(gltf, binary)
    meshes = [o for o in coll.all_objects if o.type == "MESH"]
    check(meshes, "%s: no mesh in %s" % (name, coll.name))
    checked, nonzero, worst = 0, 0, 0.0
    for obj in meshes:
        mod = [m for m in obj.modifiers if m.type == "ARMATURE"]
        check(mod and mod[0].object == new_arm, "%s: %s is not deformed by %s" %
              (name, obj.name, new_arm.name))
        want = next((v for k, v in expected.items() if obj.name == k or
                     obj.name.rsplit(".", 1)[0] == k), None)
        check(want is not None, "%s: mesh %s is not in retail's output" % (name, obj.name))
        check(len(obj.data.vertices) == len(want), "%s: %s has %d vertices, the file %d" %
              (name, obj.name, len(obj.data.vertices), len(want)))
        groups = {g.index: g.name for g in obj.vertex_groups}
        for v in obj.data.vertices:
            got = {groups[g.group]: g.weight for g in v.groups}
            for bone in tail:
                a, b = got.get(bone, 0.0), want[v.index].get(bone, 0.0)
                if a or b:
                    checked += 1
                    nonzero += a > 0
                    worst = max(worst, abs(a - b))
    check(nonzero > 0, "%s: no vertex has a non-zero Tail_* weight" % name)
    check(worst <= 1.0 / 255 + 1e-6, "%s: a tail weight differs from the file by %.5f" %
          (name, worst))

    # One new action per clip, each with rotation keys for every weighted tail bone.
    new_actions = [a for a in bpy.data.actions if a.name not in actions_before]
    clips = gltf.get("animations", [])
    input_clips = len(read_glb(path)[0].get("animations", []))
    check(len(clips) == input_clips, "%s: retail's output has %d clips, the file %d" %
          (name, len(clips), input_clips))
    check(len(new_actions) == len(clips), "%s: %d new actions for %d clips" %
          (name, len(new_actions), len(clips)))
    moving = 0
    for act in new_actions:
        for bone in tail:
            curves = [fc for fc in act.fcurves
                      if fc.data_path == 'pose.bones["%s"].rotation_quaternion' % bone]
            check(len(curves) == 4 and all(len(fc.keyframe_points) > 0 for fc in curves),
                  "%s: action %s has no rotation keys for %s" % (name, act.name, bone))
            if bone == "Tail_1":
                values = [k.co[1] for fc in curves for k in fc.keyframe_points]
                moving += max(values) - min(values) > 1e-4 if values else 0
    check(moving > 0, "%s: Tail_1 does not rotate in any action" % name)

    # The panel's summary (the add-on's report module).
    report = sys.modules[MODULE + ".report"]
    summary = json.loads(settings.last_summary)
    check(report.tail_found(summary), "%s: the summary has no tail chain" % name)
    decisions = [p["decision"] for c in summary["characters"] for p in c["pieces"]]
    check("tail_chain" in decisions, "%s: no piece decided tail_chain (%s)" % (name, decisions))
    worst_clip = summary["characters"][0]["worst_clip"]
    check(worst_clip and worst_clip["torn_after"] < worst_clip["torn_before"],
          "%s: the worst clip's torn share did not go down: %s" % (name, worst_clip))
    shown = " | ".join(drawn_panel())
    print("panel: " + shown, flush=True)
    check("tail_chain" in shown and "Torn, worst clip" in shown and "Tail_1" in shown,
          "%s: the panel's summary lacks the tail: %s" % (name, shown))
    check("retail_report" in coll, "%s: the collection does not carry the report" % name)

    if errors:
        notes.append(options_and_replace(arm, keep, coll, objects_before, input_clips))

    print("addon-test: ok: %s: %s%d tail bones under %s in '%s', %d tail weights within %.4f "
          "(%d non-zero), %d actions with tail keys, worst clip %s torn %.1f%% -> %.1f%%" %
          (name, "; ".join(notes) + ("; " if notes else ""), len(tail), hips, coll.name, checked,
           worst, nonzero, len(new_actions), worst_clip["clip"], worst_clip["torn_before"],
           worst_clip["torn_after"]), flush=True)


try:
    main()
except SystemExit:
    raise
except Exception as e:  # anything unexpected is a failed check, not a hang
    import traceback
    traceback.print_exc()
    fail("%s: %s" % (type(e).__name__, e))
