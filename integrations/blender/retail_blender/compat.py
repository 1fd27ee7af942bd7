# Compatibility with the Blender that Debian installs (bookworm: Blender 3.4.1 with the system's
# numpy 1.24). Blender 3.4's glTF importer (io_import_scene_gltf2) still uses `numpy.bool`, an
# alias of Python's bool that numpy deprecated in 1.20 and removed in 1.24, so every glTF import
# there stops with "AttributeError: module 'numpy' has no attribute 'bool'" (retail runs, the
# import of its output fails). Blender's own builds bundle an older numpy and later importers
# no longer use the alias, so the shim below does nothing there.
import warnings

import numpy


def ensure_numpy_bool():
    """Put back `numpy.bool` (= bool, what it was) only when this numpy lacks it. Returns True
    when it set it."""
    with warnings.catch_warnings():
        # numpy 1.24 warns on every look-up of the removed name ("In the future `np.bool` will
        # be defined as the corresponding NumPy scalar"): noise in Blender's console here.
        warnings.simplefilter("ignore", FutureWarning)
        if hasattr(numpy, "bool"):
            return False
    numpy.bool = bool
    return True
