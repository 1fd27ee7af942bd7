# The panel's options (per scene) and the outcome of the last run, shown by the panel.
import bpy


def _is_mesh(_self, obj):
    return obj.type == 'MESH'


class RetailSettings(bpy.types.PropertyGroup):
    mode: bpy.props.EnumProperty(
        name="Mode", default='chain',
        items=(('chain', "Chain", "Grow Tail_1..Tail_K under the hips and re-weight the tail "
                                  "(--mode chain)"),
               ('rigid', "Rigid", "Put the whole tail on the hips, no bones (--mode rigid)")))
    use_carry: bpy.props.BoolProperty(
        name="Carry", default=False,
        description="Set the total lift of the tail's rest arc (--carry); off: retail's default")
    carry: bpy.props.FloatProperty(
        name="Carry (degrees)", default=50.0, soft_min=-90.0, soft_max=180.0, precision=1,
        description="Total lift of the tail's rest arc, degrees (--carry)")
    clips_mode: bpy.props.EnumProperty(
        name="Clips", default='ALL',
        items=(('ALL', "All clips", "Bake and measure every clip"),
               ('LIST', "Only these", "Bake and measure only the clips listed (--clips)")))
    clips: bpy.props.StringProperty(
        name="Clip names", default="",
        description="Comma-separated clip names as exported (an NLA track or action name; "
                    "'Walk' also matches 'Armature|Walk')")
    tail_object: bpy.props.PointerProperty(
        name="Tail mesh", type=bpy.types.Object, poll=_is_mesh,
        description="Treat this mesh as the tail whatever detection says (--tail MESH); "
                    "empty: retail finds the tail")
    replace_originals: bpy.props.BoolProperty(
        name="Replace originals", default=False,
        description="Delete the selected armature and its meshes once the result is imported "
                    "(off: the result is imported beside them, in its own collection)")
    # The last run: the report's summary as JSON (report.summarize), or what went wrong.
    last_summary: bpy.props.StringProperty(default="", options={'HIDDEN'})
    last_error: bpy.props.StringProperty(default="", options={'HIDDEN'})
    last_collection: bpy.props.StringProperty(default="", options={'HIDDEN'})
    last_command: bpy.props.StringProperty(default="", options={'HIDDEN'})


def register():
    bpy.utils.register_class(RetailSettings)
    bpy.types.Scene.retail = bpy.props.PointerProperty(type=RetailSettings)


def unregister():
    del bpy.types.Scene.retail
    bpy.utils.unregister_class(RetailSettings)
