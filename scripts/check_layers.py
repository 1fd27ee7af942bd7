#!/usr/bin/env python3
"""Layering check (docs/pipeline.md, "Layers"): the folders are the layers.

    scripts/check_layers.py [REPO]

A file's group is its folder: src/G/x.cpp, src/G/x_internal.h and include/retail/G/x.h are in
group G; everything under tools/ and testing/ is in the group `tools`. The groups and their order
are the rows of the table under "## Layers" in docs/pipeline.md (top first; the first word of
the first cell names the group). Fails (exit 1, one line per problem) when
  - a file of src/ or include/retail/ is not in a group's folder, or in a folder the table does
    not name;
  - a module (a file's name without its extension and `_internal`: include/retail/qa/stretch.h
    and src/qa/stretch.cpp are one module) has files in two groups (headers mirror sources);
  - a file includes a file of a higher group than its own, or a quoted include names no file of
    the repository's include paths;
  - modules include each other in a cycle.
Exit 0 when clean."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ROW = re.compile(r"^\|\s*([a-z_]+)\b[^|]*\|")
# Where a quoted include is looked up after the including file's own folder (the targets'
# include directories in CMakeLists.txt).
SEARCH = ["include", "src", "testing/include", "testing/src"]


def read_groups(root):
    """Group names from docs/pipeline.md's layer table, lowest first."""
    path = os.path.join(root, "docs", "pipeline.md")
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    try:
        start = lines.index("## Layers")
    except ValueError:
        sys.exit(f"check_layers: no '## Layers' section in {path}")
    groups, in_table = [], False
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            if in_table:
                break
            continue
        in_table = True
        m = ROW.match(line)
        if m and m.group(1) not in ("layer", "group"):  # not the header row
            groups.append(m.group(1))
    if not groups:
        sys.exit(f"check_layers: no layer table under '## Layers' in {path}")
    return list(reversed(groups))


def module(path):
    name = os.path.splitext(os.path.basename(path))[0]
    return name[: -len("_internal")] if name.endswith("_internal") else name


def group_of(rel):
    """The group a repository-relative path's folder names, or None when it is not in one
    (an empty string for a file directly in src/ or include/retail/)."""
    parts = rel.split("/")
    if parts[0] in ("tools", "testing"):
        return "tools"
    if parts[0] == "src":
        return parts[1] if len(parts) == 3 else ""
    if parts[:2] == ["include", "retail"]:
        return parts[2] if len(parts) == 4 else ""
    return None


def source_files(root):
    for top in ("include", "src", "testing", "tools"):
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".h", ".cpp")):
                    yield os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")


def resolve(root, rel, inc):
    for base in [os.path.dirname(rel)] + SEARCH:
        cand = os.path.normpath(os.path.join(base, inc)).replace(os.sep, "/")
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def cycles(graph):
    """Strongly connected components with more than one node (Tarjan)."""
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
    return sccs


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    sys.setrecursionlimit(10000)
    groups = read_groups(root)
    rank = {g: i for i, g in enumerate(groups)}
    problems = []
    files = list(source_files(root))
    placed = {}  # file -> group, for the files that are in a known group's folder
    for rel in files:
        g = group_of(rel)
        if g is None:
            continue
        if g == "":
            problems.append(f"{rel}: not in a group's folder (docs/pipeline.md, \"Layers\")")
        elif g not in rank:
            problems.append(f"{rel}: folder '{g}' is not a layer of docs/pipeline.md's table")
        else:
            placed[rel] = g

    # Headers mirror sources: a module lives in one group.
    homes = {}
    for rel, g in placed.items():
        if g != "tools":
            homes.setdefault(module(rel), {}).setdefault(g, rel)
    for mod, where in sorted(homes.items()):
        if len(where) > 1:
            problems.append(f"module '{mod}' is split between groups: " +
                            ", ".join(sorted(where.values())))

    def node(rel):
        return f"{placed[rel]}/{module(rel)}"

    graph = {}
    for rel, g in placed.items():
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            target = resolve(root, rel, inc)
            if target is None:
                problems.append(f"{rel}: includes \"{inc}\", no such file in the include paths")
                continue
            tg = placed.get(target)
            if tg is None:
                continue  # tests' own headers
            if rank[tg] > rank[g]:
                problems.append(f"{rel}: includes {inc} ({tg}) from the lower layer {g}")
            if node(target) != node(rel):
                graph.setdefault(node(rel), set()).add(node(target))
    for comp in cycles(graph):
        problems.append("include cycle between modules: " + " <-> ".join(comp))
    for p in problems:
        print(p)
    if not problems:
        print(f"check_layers: {len(placed)} files in {len(groups)} layers, "
              f"includes run downwards, no cycle")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
