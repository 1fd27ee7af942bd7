# The sidebar panel (3D view, N, tab "retail"): the options users change most, the button, and
# the last run's summary from the report.
import json

import bpy

from . import operators, report


class RETAIL_OT_tail_from_active(bpy.types.Operator):
    """Use the active mesh as the tail (--tail MESH)"""
    bl_idname = "retail.tail_from_active"
    bl_label = "Tail from active object"
    bl_options = {'REGISTER', 'UNDO'}

    def execute(self, context):
        obj = context.active_object
        if obj is None or obj.type != 'MESH':
            self.report({'ERROR'}, "the active object is not a mesh")
            return {'CANCELLED'}
        context.scene.retail.tail_object = obj
        return {'FINISHED'}


class RETAIL_PT_panel(bpy.types.Panel):
    bl_idname = "RETAIL_PT_panel"
    bl_label = "retail"
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "retail"

    def draw(self, context):
        settings = context.scene.retail
        layout = self.layout
        layout.prop(settings, "mode", expand=True)
        row = layout.row(align=True)
        row.prop(settings, "use_carry", text="")
        sub = row.row(align=True)
        sub.active = settings.use_carry
        sub.prop(settings, "carry")
        layout.prop(settings, "clips_mode", expand=True)
        if settings.clips_mode == 'LIST':
            layout.prop(settings, "clips", text="")
        row = layout.row(align=True)
        row.prop(settings, "tail_object")
        row.operator(RETAIL_OT_tail_from_active.bl_idname, text="", icon='EYEDROPPER')
        layout.prop(settings, "hair")
        layout.prop(settings, "on_rerun", expand=True)
        layout.prop(settings, "qa_page")
        layout.prop(settings, "replace_originals")
        layout.operator(operators.RETAIL_OT_fix_tail.bl_idname, icon='BONE_DATA')
        if settings.last_page:
            layout.operator(operators.RETAIL_OT_open_page.bl_idname, icon='URL')

        if settings.last_error:
            box = layout.box()
            box.alert = True
            box.label(text="Last run failed", icon='ERROR')
            for part in wrap(settings.last_error):
                box.label(text=part)
        if settings.last_summary:
            box = layout.box()
            box.label(text="Last run: " + settings.last_collection, icon='OUTLINER_COLLECTION')
            for part in wrap(settings.last_message):
                box.label(text=part)
            for text, icon in report.lines(json.loads(settings.last_summary)):
                for i, part in enumerate(wrap(text)):
                    box.label(text=part, icon=icon if i == 0 else 'BLANK1')


def wrap(text, width=48):
    words, line, out = text.split(), "", []
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            out.append(line)
            line = w
        else:
            line = (line + " " + w).strip()
    if line:
        out.append(line)
    return out or [""]


CLASSES = (RETAIL_OT_tail_from_active, RETAIL_PT_panel)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister():
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
