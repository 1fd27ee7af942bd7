# retail for Blender: re-rig the selected auto-rigged character's tail with the retail CLI
# (issue 18 point 3). One concern per module: preferences (the binary), properties (the panel's
# options and the last run), runner (retail's command line and process), report (the report's
# summary), operators (export, run, import), panel (the sidebar), compat (the numpy shim Debian's
# Blender 3.4 needs to import glTF at all; applied when the add-on is enabled, so the user's own
# File > Import > glTF works too, and again before each import).
bl_info = {
    "name": "retail: fix auto-rigged tails",
    "author": "retail",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "3D View > Sidebar (N) > retail",
    "description": "Grow a bone chain along a tail an auto-rigger missed, re-weight it and bake "
                   "its spring motion into every clip, with the retail command-line tool",
    "category": "Rigging",
}

from . import compat, operators, panel, preferences, properties  # noqa: E402

_MODULES = (preferences, properties, operators, panel)


def register():
    compat.ensure_numpy_bool()
    for module in _MODULES:
        module.register()


def unregister():
    for module in reversed(_MODULES):
        module.unregister()
