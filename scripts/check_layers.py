#!/usr/bin/env python3
"""Layering check (docs/pipeline.md, "Layers"): fails when a file includes a header of a higher
layer, or when the modules of one layer include each other in a cycle.

    scripts/check_layers.py [REPO]

A module is a file's name without its extension (src/qa/stretch.cpp and include/retail/qa/stretch.h
are one module; a private X_internal.h belongs to X); the LAYERS table below gives each module its layer, lowest first. Every module
under include/, src/, testing/ and tools/ must be listed. Exit 0 when clean, 1 with one line per
problem."""
import os
import re
import sys

# Lowest first. A module may include modules of its own layer or below, never above.
LAYERS = [
    ("base", ["error", "document", "model", "files", "sha256", "parallel"]),
    ("io", ["io", "container", "accessor", "builder", "validate", "validate_graph"]),
    ("rig", ["transform", "skeleton", "roles", "mesh", "animation", "skinning"]),
    ("detect", ["weld", "distance", "geodesic", "detect", "components", "classify", "selector"]),
    ("grow", ["chain", "root_band", "rig_edit", "rerig", "hair_rig"]),
    ("qa", ["simd", "skin_sampler", "order_stats", "stretch", "qa", "heat_map"]),
    ("motion", ["spring", "bake", "clip_pass", "vrm_springs", "hair_solver", "hair_vrm",
                "hair_measure", "vrm_spring_export", "head_turn", "hair_qa", "spring_bake"]),
    ("record", ["run_record", "report", "html_page", "html_assets", "html_index"]),
    ("app", ["pipeline", "pipeline_page", "batch", "info"]),
    ("tools", ["retail_main", "make_test_rig", "skin_positions", "rig_generator",
               "rig_generator_anim", "rig_generator_tails", "rig_generator_vrm",
               "reference_skinning"]),
]

def module(path):
    name = os.path.splitext(os.path.basename(path))[0]
    return name[: -len("_internal")] if name.endswith("_internal") else name


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    layer_of = {}
    for rank, (name, modules) in enumerate(LAYERS):
        for m in modules:
            layer_of[m] = (rank, name)
    problems = []
    graph = {}
    for top in ("include", "src", "testing", "tools"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                mod = module(f)
                if mod not in layer_of:
                    problems.append(f"{rel}: module '{mod}' has no layer (scripts/check_layers.py)")
                    continue
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                for inc in INCLUDE.findall(text):
                    target = module(inc)
                    if target not in layer_of:
                        continue  # a test's or a third party's header
                    if target != mod:
                        graph.setdefault(mod, set()).add(target)
                    if layer_of[target][0] > layer_of[mod][0]:
                        problems.append(f"{rel}: includes {inc} ({layer_of[target][1]}) from the "
                                        f"lower layer {layer_of[mod][1]}")
    # Cycles between modules (Tarjan's strongly connected components).
    index, low, stack, on, sccs = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    for comp in sccs:
        problems.append("include cycle between modules: " + " <-> ".join(comp))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
