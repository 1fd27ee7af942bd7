# "Fix tail with retail": export the selected armature and its meshes to a temporary GLB, run
# retail on it, import the result into its own collection beside the originals (or in their
# place when asked), replacing this armature's previous result unless asked to add, and keep
# the report's summary for the panel. Temp files are removed; the QA page is kept (PAGES_DIR or
# the keep folder) for "Open QA page".
import contextlib
import json
import os
import pathlib
import re
import shutil
import struct
import tempfile
import webbrowser

import bpy

from . import compat, preferences, report, runner

# Where QA pages go when no keep folder is set: they outlive the run (the browser opens them
# later), one per result collection, overwritten by the next run of the same collection.
PAGES_DIR = "retail-qa-pages"

# Blender 3.4's glTF exporter: the selection only; the armature's clips are its active action
# and its NLA tracks (one strip each), sampled over their own range rather than the scene's
# playback range (export_anim_single_armature would add every armature action in the file,
# e.g. those of an earlier result); skins, shape keys; no cameras, lights or custom
# properties. Nothing here depends on the current frame.
EXPORT_OPTIONS = dict(
    export_format='GLB', use_selection=True, export_animations=True, export_skins=True,
    export_morph=True, export_frame_range=False, export_force_sampling=True,
    export_nla_strips=True, export_anim_single_armature=False, export_def_bones=False,
    export_apply=False, export_current_frame=False, export_extras=False, export_cameras=False,
    export_lights=False, export_yup=True, will_save_settings=False)


def export_options():
    """EXPORT_OPTIONS less those this Blender's exporter does not have (later versions renamed
    some; tested on 3.4), with its per-action animation mode where it has one (3.6+)."""
    known = bpy.ops.export_scene.gltf.get_rna_type().properties.keys()
    options = {k: v for k, v in EXPORT_OPTIONS.items() if k in known}
    if "export_animation_mode" in known:
        options["export_animation_mode"] = 'ACTIONS'
    return options


class Failed(Exception):
    """A run stopped before anything was imported; str() goes to the report area."""


def find_armature(context):
    """The selected armature, or the armature of the selected meshes."""
    selected = list(context.selected_objects)
    armatures = [o for o in selected if o.type == 'ARMATURE']
    if len(armatures) > 1:
        raise Failed("select one armature (%d are selected)" % len(armatures))
    if armatures:
        return armatures[0]
    owners = {arm for o in selected if o.type == 'MESH' for arm in [armature_of(o)] if arm}
    if len(owners) == 1:
        return owners.pop()
    if not selected:
        raise Failed("nothing selected: select the character's armature")
    raise Failed("no armature selected: select the character's armature")


def armature_of(mesh):
    if mesh.parent is not None and mesh.parent.type == 'ARMATURE':
        return mesh.parent
    for m in mesh.modifiers:
        if m.type == 'ARMATURE' and m.object is not None:
            return m.object
    return None


def meshes_of(arm, scene):
    """The meshes the armature deforms: its mesh descendants and meshes whose Armature modifier
    names it."""
    out = [o for o in arm.children_recursive if o.type == 'MESH']
    for o in scene.objects:
        if o.type == 'MESH' and o not in out and armature_of(o) == arm:
            out.append(o)
    return out


@contextlib.contextmanager
def selection(context, objects):
    """Select exactly `objects` (the first active) for the exporter; restore afterwards."""
    view_layer = context.view_layer
    before = [o for o in view_layer.objects if o.select_get()]
    active = view_layer.objects.active
    try:
        for o in before:
            o.select_set(False)
        for o in objects:
            o.select_set(True)
        view_layer.objects.active = objects[0]
        yield
    finally:
        for o in view_layer.objects:
            o.select_set(False)
        for o in before:
            if o.name in view_layer.objects:
                o.select_set(True)
        view_layer.objects.active = active


def glb_json(path):
    with open(path, "rb") as f:
        head = f.read(20)
        length = struct.unpack_from("<I", head, 12)[0]
        return json.loads(f.read(length))


def tail_mesh_name(glb_path, obj):
    """The glTF mesh name the exporter gave the tail object (retail's --tail takes mesh names)."""
    gltf = glb_json(glb_path)
    for node in gltf.get("nodes", []):
        if node.get("name") == obj.name and "mesh" in node:
            name = gltf["meshes"][node["mesh"]].get("name")
            if name:
                return name
    raise Failed("the tail mesh '%s' is not one of the exported meshes of the armature" %
                 obj.name)


def import_into(context, path, name, bone_heuristic):
    """Import a GLB and move what it created into a new collection `name` linked to the scene
    (Blender 3.4's importer links everything to the scene's own collection); returns it. The
    actions the import made are listed in the collection's `retail_actions` (JSON), so that
    replacing the result removes them too."""
    compat.ensure_numpy_bool()
    before = {o.as_pointer() for o in bpy.data.objects}
    actions_before = {a.as_pointer() for a in bpy.data.actions}
    result = bpy.ops.import_scene.gltf(filepath=path, bone_heuristic=bone_heuristic)
    created = [o for o in bpy.data.objects if o.as_pointer() not in before]
    actions = [a.name for a in bpy.data.actions if a.as_pointer() not in actions_before]
    if 'FINISHED' not in result:
        for o in created:
            bpy.data.objects.remove(o, do_unlink=True)
        raise Failed("Blender's glTF importer could not read retail's output (%s)" % result)
    collection = bpy.data.collections.new(name)
    context.scene.collection.children.link(collection)
    for o in created:
        for c in list(o.users_collection):
            c.objects.unlink(o)
        collection.objects.link(o)
    collection["retail_actions"] = json.dumps(actions)
    return collection


def results_of(arm_name):
    """The collections holding earlier results of the armature named `arm_name`."""
    return [c for c in bpy.data.collections if c.get("retail_source") == arm_name]


def result_name(arm_name, mode):
    """The new result's collection name: '<armature> (retail)' when replacing (the previous
    result goes), else the first of '<armature> (retail)', '<armature> (retail 2)', ... free."""
    base = arm_name + " (retail)"
    if mode == 'REPLACE':
        return base
    n, name = 1, base
    while name in bpy.data.collections:
        n += 1
        name = "%s (retail %d)" % (arm_name, n)
    return name


def remove_result(collection):
    """Delete an earlier result: its objects (and their data when nothing else uses it), the
    actions its import made, and the collection."""
    for o in list(collection.all_objects):
        data = o.data
        bpy.data.objects.remove(o, do_unlink=True)
        if data is not None and data.users == 0:
            if isinstance(data, bpy.types.Mesh):
                bpy.data.meshes.remove(data)
            elif isinstance(data, bpy.types.Armature):
                bpy.data.armatures.remove(data)
    try:
        actions = json.loads(collection.get("retail_actions", "[]"))
    except ValueError:
        actions = []
    for name in actions:
        action = bpy.data.actions.get(name)
        if action is not None:
            bpy.data.actions.remove(action)
    bpy.data.collections.remove(collection)


def page_path(prefs, collection_name):
    """Where the QA page of the result `collection_name` is written (the folder is made)."""
    folder = (bpy.path.abspath(prefs.keep_dir) if prefs.keep_dir else
              os.path.join(tempfile.gettempdir(), PAGES_DIR))
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, safe_name(collection_name) + ".html")


def safe_name(name):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "character"


class RETAIL_OT_fix_tail(bpy.types.Operator):
    """Export the selected armature and its meshes, re-rig the tail with retail and import the
    result beside the originals"""
    bl_idname = "retail.fix_tail"
    bl_label = "Fix tail with retail"
    bl_options = {'REGISTER', 'UNDO'}
    page_note = ""

    def execute(self, context):
        self.page_note = ""
        settings = context.scene.retail
        settings.last_command = ""
        settings.last_message = ""
        settings.last_page = ""
        try:
            collection, summary = self.run(context, settings)
        except (Failed, runner.RetailError, OSError, RuntimeError) as e:
            # RuntimeError: an exporter or importer operator that failed; OSError: the temp or
            # keep folder, the report file.
            settings.last_error = str(e)
            settings.last_summary = ""
            settings.last_collection = ""
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        settings.last_error = ""
        settings.last_summary = json.dumps(summary, sort_keys=True)
        settings.last_collection = collection.name
        settings.last_page = collection.get("retail_page", "")
        # What retail did, from its report (a chain added, a tail the harm check rejected and
        # why, nothing found, skin left torn, hair), then where the result went.
        level, message = report.outcome(summary)
        what = "imported the re-rigged character" if report.tail_found(summary) or any(
            c["hair_chains"] for c in summary["characters"]) else "imported a faithful copy"
        settings.last_message = "%s; %s into '%s'" % (message, what, collection.name)
        if self.page_note:
            settings.last_message += "; " + self.page_note
        self.report({level}, settings.last_message)
        return {'FINISHED'}

    def run(self, context, settings):
        prefs = preferences.get(context)
        binary, problem = preferences.resolve_binary(prefs.retail_path)
        if problem:
            raise Failed(problem + " (Edit > Preferences > Add-ons > retail)")
        arm = find_armature(context)
        meshes = meshes_of(arm, context.scene)
        if not meshes:
            raise Failed("the armature '%s' deforms no mesh" % arm.name)
        clips = None
        if settings.clips_mode == 'LIST':
            clips = runner.clip_list(settings.clips)
            if not clips:
                raise Failed("no clip names given (Clips: Only these)")
        if context.mode != 'OBJECT':
            bpy.ops.object.mode_set(mode='OBJECT')

        work = tempfile.mkdtemp(prefix="retail-blender-")
        try:
            stem = safe_name(arm.name)
            in_path = os.path.join(work, stem + ".glb")
            out_path = os.path.join(work, stem + ".retail.glb")
            report_path = os.path.join(work, stem + ".retail.report.json")
            with selection(context, [arm] + meshes):
                result = bpy.ops.export_scene.gltf(filepath=in_path, **export_options())
            if 'FINISHED' not in result:
                raise Failed("Blender's glTF exporter failed (%s)" % result)
            tail = None
            if settings.tail_object is not None:
                tail = tail_mesh_name(in_path, settings.tail_object)
            name = result_name(arm.name, settings.on_rerun)
            page = page_path(prefs, name) if settings.qa_page else None
            args = runner.build_args(binary, in_path, out_path, report_path, mode=settings.mode,
                                     carry=settings.carry if settings.use_carry else None,
                                     clips=clips, tail=tail,
                                     hair=runner.selector_list(settings.hair), page=page)
            settings.last_command = " ".join(args)
            print("retail: running", settings.last_command)
            try:
                log = runner.run(args, prefs.timeout)
            except runner.RetailError as e:
                # A retail built without three.js cannot write the page (exit 3, saying so):
                # the re-rig itself is still wanted, so run again without --html.
                if not page or "without three.js" not in str(e):
                    raise
                page = None
                self.page_note = "no QA page: this retail was built without three.js"
                i = args.index("--html")
                args = args[:i] + args[i + 2:]
                settings.last_command = " ".join(args)
                log = runner.run(args, prefs.timeout)
            print(log, end="")
            with open(report_path, encoding="utf-8") as f:
                text = f.read()
            try:
                summary = report.summarize(json.loads(text))
            except (ValueError, KeyError, TypeError) as e:
                raise Failed("cannot read retail's report %s: %s" % (report_path, e)) from None
            if prefs.keep_dir:
                keep = bpy.path.abspath(prefs.keep_dir)
                os.makedirs(keep, exist_ok=True)
                for path in (in_path, out_path, report_path):
                    shutil.copyfile(path, os.path.join(keep, os.path.basename(path)))
            earlier = results_of(arm.name) if settings.on_rerun == 'REPLACE' else []
            collection = import_into(context, out_path, name, prefs.bone_axes)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        # The previous result goes only once the new one is in (a failed run keeps it).
        for old in earlier:
            remove_result(old)
        collection.name = name
        collection["retail_source"] = arm.name
        collection["retail_report"] = text
        if page:
            collection["retail_page"] = page
        if settings.replace_originals:
            doomed = {o.name: o for o in [arm, *arm.children_recursive, *meshes]}
            for o in doomed.values():
                bpy.data.objects.remove(o, do_unlink=True)
        return collection, summary


class RETAIL_OT_open_page(bpy.types.Operator):
    """Open the last run's QA page (retail --html: the rigs side by side with the edge-stretch
    heat map and the report) in the web browser"""
    bl_idname = "retail.open_page"
    bl_label = "Open QA page"

    @classmethod
    def poll(cls, context):
        page = context.scene.retail.last_page
        return bool(page) and os.path.isfile(page)

    def execute(self, context):
        url = pathlib.Path(context.scene.retail.last_page).resolve().as_uri()
        if not webbrowser.open(url):
            self.report({'ERROR'}, "no web browser to open %s" % url)
            return {'CANCELLED'}
        self.report({'INFO'}, "opened " + url)
        return {'FINISHED'}


CLASSES = (RETAIL_OT_fix_tail, RETAIL_OT_open_page)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister():
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
