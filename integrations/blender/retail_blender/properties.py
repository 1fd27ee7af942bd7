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
    hair: bpy.props.StringProperty(
        name="Hair", default="",
        description="Rebuild these hair clumps as chains under the head (--hair, one per "
                    "selector, comma-separated): a mesh name as exported (the object's mesh "
                    "data name), a material name, or M/P (docs/hair.md); empty: no hair")
    on_rerun: bpy.props.EnumProperty(
        name="Result", default='REPLACE',
        items=(('REPLACE', "Replace previous",
                "Delete this armature's previous result (its collection, objects and actions) "
                "once the new one is imported"),
               ('ADD', "Add", "Keep earlier results and add this one in a new collection "
                              "('<armature> (retail 2)', ...)")),
        description="What a run does with an earlier result of the same armature")
    qa_page: bpy.props.BoolProperty(
        name="QA page", default=True,
        description="Also write retail's QA page (--html): the input, the rigid reference and "
                    "the output side by side with the edge-stretch heat map; 'Open QA page' "
                    "shows it in the web browser")
    replace_originals: bpy.props.BoolProperty(
        name="Replace originals", default=False,
        description="Delete the selected armature and its meshes once the result is imported "
                    "(off: the result is imported beside them, in its own collection)")
    # The last run: the report's summary as JSON (report.summarize), or what went wrong.
    last_summary: bpy.props.StringProperty(default="", options={'HIDDEN'})
    last_error: bpy.props.StringProperty(default="", options={'HIDDEN'})
    last_collection: bpy.props.StringProperty(default="", options={'HIDDEN'})
    last_command: bpy.props.StringProperty(default="", options={'HIDDEN'})
    last_page: bpy.props.StringProperty(default="", options={'HIDDEN'})
    last_message: bpy.props.StringProperty(default="", options={'HIDDEN'})


def register():
    bpy.utils.register_class(RetailSettings)
    bpy.types.Scene.retail = bpy.props.PointerProperty(type=RetailSettings)


def unregister():
    del bpy.types.Scene.retail
    bpy.utils.unregister_class(RetailSettings)
