# Add-on preferences: where the retail binary is, how long a run may take, and where to keep
# retail's output (by default it lives in a temporary folder that is removed after the import).
import os
import shutil
import subprocess

import bpy


def resolve_binary(path):
    """(absolute path, None) of an executable retail, or (None, a message saying what is wrong)."""
    path = (path or "").strip()
    if not path:
        return None, "no retail binary set in the add-on preferences"
    if os.sep in path or (os.altsep and os.altsep in path) or path.startswith("//"):
        full = os.path.abspath(bpy.path.abspath(path))
        if not os.path.isfile(full):
            return None, "retail binary not found: %s" % full
        if not os.access(full, os.X_OK):
            return None, "retail binary is not executable: %s" % full
        return full, None
    found = shutil.which(path)
    if found is None:
        return None, "retail binary '%s' is not on PATH" % path
    return found, None


def get(context):
    return context.preferences.addons[__package__].preferences


class RETAIL_OT_check_binary(bpy.types.Operator):
    """Run the retail binary with --version and show what it says"""
    bl_idname = "retail.check_binary"
    bl_label = "Check retail"

    def execute(self, context):
        binary, problem = resolve_binary(get(context).retail_path)
        if problem:
            self.report({'ERROR'}, problem)
            return {'CANCELLED'}
        try:
            done = subprocess.run([binary, "--version"], capture_output=True, text=True,
                                  timeout=20, check=False)
        except (OSError, subprocess.SubprocessError) as e:
            self.report({'ERROR'}, "cannot run %s: %s" % (binary, e))
            return {'CANCELLED'}
        if done.returncode != 0:
            self.report({'ERROR'}, "%s --version exited %d: %s" %
                        (binary, done.returncode, done.stderr.strip()))
            return {'CANCELLED'}
        self.report({'INFO'}, "%s (%s)" % (done.stdout.strip(), binary))
        return {'FINISHED'}


class RetailPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    retail_path: bpy.props.StringProperty(
        name="retail binary", subtype='FILE_PATH', default="retail",
        description="The retail executable: a path, or a name looked up on PATH")
    timeout: bpy.props.IntProperty(
        name="Timeout (s)", default=600, min=1,
        description="Stop retail when a run takes longer than this")
    bone_axes: bpy.props.EnumProperty(
        name="Bone directions", default='BLENDER',
        items=(('BLENDER', "As the original",
                "Import with the glTF importer's 'Blender' bone heuristic: the body bones keep "
                "the exported armature's axes exactly (its actions fit the result). retail's tail "
                "nodes carry no rotation, so the tail bones are drawn along the hips' +Y, which "
                "can point back towards the body; they deform and animate correctly"),
               ('TEMPERANCE', "Along the chain",
                "Import with the importer's default 'Temperance' heuristic: the tail bones point "
                "along the chain, but some body bones (leaves, IK helpers) may get other rest "
                "axes than the original")),
        description="How Blender orients the imported bones (the glTF importer's Bone Dir)")
    keep_dir: bpy.props.StringProperty(
        name="Keep output in", subtype='DIR_PATH', default="",
        description="When set, retail's output GLB and report JSON are copied into this folder "
                    "(otherwise they are deleted after the import)")

    def draw(self, context):
        layout = self.layout
        row = layout.row(align=True)
        row.prop(self, "retail_path")
        row.operator(RETAIL_OT_check_binary.bl_idname, text="", icon='CHECKMARK')
        binary, problem = resolve_binary(self.retail_path)
        if problem:
            box = layout.box()
            box.alert = True
            box.label(text=problem, icon='ERROR')
            box.label(text="Build retail (cmake --build build --target retail) and point this at "
                           "build/retail, or put it on PATH.")
        else:
            layout.label(text="Using " + binary, icon='CHECKMARK')
        layout.prop(self, "timeout")
        layout.prop(self, "bone_axes")
        layout.prop(self, "keep_dir")


CLASSES = (RETAIL_OT_check_binary, RetailPreferences)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister():
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
