#!/usr/bin/env python3
"""Invariance probes: what retail decides on a model should not depend on how its file says it.

Each GLB given is rewritten in ways that leave the character the same (or mirror it), retail runs
on the original and on every rewrite, and one line per model and rewrite compares the tail
decisions, each chain's vertices and the left-torn count with the original's:

  winding   every triangle's last two indices swapped (a file wound inside out)
  turn37    every scene root under a node turned 37 degrees about Y
  scale100  every scene root under a node scaled 100
  mirror    every scene root under a node scaled -1 in X
  sides     Left and Right swapped in every joint name (named from the viewer's side)
  anon      every joint renamed joint_N (no name says a role: roles from topology)
  shuffle   every primitive's vertices renumbered (attributes moved, indices remapped)
  crown     one triangle 10% of H above the top of the skin, weighted to the head: a hat or a
            crest makes H (the skin's height) larger for the same body, and so every number
            relative to H (not a same-character rewrite: it measures how much rides on H)

For 'sides' it also says whether the output's binary chunk (animation and weights) is byte for
byte the original's. Standard library only.

  bench/invariance.py RETAIL_BIN OUT_DIR MODEL.glb...   (docs/robustness.md quotes a run;
  KINDS=crown,mirror runs only those rewrites)
"""
import json
import math
import os
import re
import struct
import subprocess
import sys
from array import array


def read_glb(path):
    b = open(path, 'rb').read()
    jl = struct.unpack('<I', b[12:16])[0]
    return json.loads(b[20:20 + jl]), b[20 + jl:]


def write_glb(path, j, rest):
    js = json.dumps(j, separators=(',', ':')).encode()
    js += b' ' * ((4 - len(js) % 4) % 4)
    head = struct.pack('<4sII', b'glTF', 2, 12 + 8 + len(js) + len(rest))
    open(path, 'wb').write(head + struct.pack('<I4s', len(js), b'JSON') + js + rest)


def under_root(j, node):
    scene = j['scenes'][j.get('scene', 0)]
    node['children'] = list(scene['nodes'])
    j['nodes'].append(node)
    scene['nodes'] = [len(j['nodes']) - 1]


def winding(j, rest):
    bl = struct.unpack('<I', rest[:4])[0]
    buf = bytearray(rest[8:8 + bl])
    codes = {5121: 'B', 5123: 'H', 5125: 'I'}
    done = set()
    for m in j['meshes']:
        for p in m['primitives']:
            if 'indices' not in p or p['indices'] in done or p.get('mode', 4) != 4:
                continue
            done.add(p['indices'])
            a = j['accessors'][p['indices']]
            bv = j['bufferViews'][a['bufferView']]
            off = bv.get('byteOffset', 0) + a.get('byteOffset', 0)
            idx = array(codes[a['componentType']])
            size = idx.itemsize * a['count']
            idx.frombytes(bytes(buf[off:off + size]))
            for t in range(0, len(idx) - 2, 3):
                idx[t + 1], idx[t + 2] = idx[t + 2], idx[t + 1]
            buf[off:off + size] = idx.tobytes()
    return j, rest[:8] + bytes(buf) + rest[8 + bl:]


def shuffle(j, rest):
    """Every primitive's vertices in another order (a fixed pseudo-random permutation), its
    attributes moved with them and its indices renumbered: the same mesh as another exporter
    might number it. Accessors shared between primitives are left as they are."""
    import random
    bl = struct.unpack('<I', rest[:4])[0]
    buf = bytearray(rest[8:8 + bl])
    sizes = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}
    comps = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4, 'MAT4': 16}
    uses = {}
    for m in j['meshes']:
        for p in m['primitives']:
            for a in list(p['attributes'].values()) + [p.get('indices')]:
                if a is not None:
                    uses[a] = uses.get(a, 0) + 1
    rng = random.Random(7)
    for m in j['meshes']:
        for p in m['primitives']:
            attrs = list(p['attributes'].values())
            if 'targets' in p or 'indices' not in p or any(uses[a] > 1 for a in attrs + [p['indices']]):
                continue
            n = j['accessors'][p['attributes']['POSITION']]['count']
            perm = list(range(n))
            rng.shuffle(perm)  # new vertex i is old vertex perm[i]
            inv = [0] * n
            for i, o in enumerate(perm):
                inv[o] = i
            for a in attrs:
                acc = j['accessors'][a]
                bv = j['bufferViews'][acc['bufferView']]
                size = sizes[acc['componentType']] * comps[acc['type']]
                stride = bv.get('byteStride', size)
                base = bv.get('byteOffset', 0) + acc.get('byteOffset', 0)
                old = [bytes(buf[base + k * stride:base + k * stride + size]) for k in range(n)]
                for i, o in enumerate(perm):
                    buf[base + i * stride:base + i * stride + size] = old[o]
            acc = j['accessors'][p['indices']]
            bv = j['bufferViews'][acc['bufferView']]
            code = {5121: 'B', 5123: 'H', 5125: 'I'}[acc['componentType']]
            off = bv.get('byteOffset', 0) + acc.get('byteOffset', 0)
            idx = array(code)
            size = idx.itemsize * acc['count']
            idx.frombytes(bytes(buf[off:off + size]))
            for t in range(len(idx)):
                idx[t] = inv[idx[t]]
            buf[off:off + size] = idx.tobytes()
    return j, rest[:8] + bytes(buf) + rest[8 + bl:]


def mat_mul(a, b):
    return [[sum(a[r][k] * b[k][c] for k in range(4)) for c in range(4)] for r in range(4)]


def mat_inv(m):
    """Gauss-Jordan with partial pivoting (a 4 x 4 affine matrix)."""
    a = [row[:] + [1.0 if r == c else 0.0 for c in range(4)] for r, row in enumerate(m)]
    for c in range(4):
        p = max(range(c, 4), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        a[c] = [x / a[c][c] for x in a[c]]
        for r in range(4):
            if r != c:
                a[r] = [x - a[r][c] * y for x, y in zip(a[r], a[c])]
    return [row[4:] for row in a]


def local_matrix(n):
    if 'matrix' in n:
        v = n['matrix']
        return [[v[c * 4 + r] for c in range(4)] for r in range(4)]
    x, y, z, w = n.get('rotation', [0, 0, 0, 1])
    s, t = n.get('scale', [1, 1, 1]), n.get('translation', [0, 0, 0])
    rot = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
           [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
           [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    return [[rot[r][c] * s[c] for c in range(3)] + [t[r]] for r in range(3)] + [[0, 0, 0, 1]]


def read_floats(j, buf, index):
    a = j['accessors'][index]
    bv = j['bufferViews'][a['bufferView']]
    n = {'SCALAR': 1, 'VEC3': 3, 'VEC4': 4, 'MAT4': 16}[a['type']]
    off, stride = bv.get('byteOffset', 0) + a.get('byteOffset', 0), bv.get('byteStride', 4 * n)
    return [struct.unpack_from('<%df' % n, buf, off + k * stride) for k in range(a['count'])]


def crown(j, rest, rise=0.10):
    """A triangle `rise` x H above the top of the skinned meshes at bind (skin space to world
    through the skeleton root, as retail reads it), over the head (the first joint named Head,
    else the highest), weighted 1 to it, as a mesh and node of its own drawn with the first
    skinned node's skin."""
    bl = struct.unpack('<I', rest[:4])[0]
    buf = bytearray(rest[8:8 + bl])
    parent = {c: i for i, n in enumerate(j['nodes']) for c in n.get('children', [])}

    def world(i):
        m = local_matrix(j['nodes'][i])
        while i in parent:
            i = parent[i]
            m = mat_mul(local_matrix(j['nodes'][i]), m)
        return m
    drawn = [n for n in j['nodes'] if 'mesh' in n and 'skin' in n]

    def bind_of(skin):
        """Per joint its inverse bind matrix, and skin space -> world at bind as retail takes
        it (through the skeleton root's)."""
        ibms = ([[[v[c * 4 + r] for c in range(4)] for r in range(4)]
                 for v in read_floats(j, buf, skin['inverseBindMatrices'])]
                if 'inverseBindMatrices' in skin else [mat_inv(world(n)) for n in skin['joints']])
        root = next(q for q, n in enumerate(skin['joints']) if parent.get(n) not in skin['joints'])
        return ibms, mat_mul(world(skin['joints'][root]), ibms[root])
    top, bottom = -math.inf, math.inf
    for n in drawn:  # every skinned mesh (a character may be drawn by several skins)
        row = bind_of(j['skins'][n['skin']])[1][1]
        for p in j['meshes'][n['mesh']]['primitives']:
            for v in read_floats(j, buf, p['attributes']['POSITION']):
                y = row[0] * v[0] + row[1] * v[1] + row[2] * v[2] + row[3]
                top, bottom = max(top, y), min(bottom, y)
    skin_id = drawn[0]['skin']
    skin = j['skins'][skin_id]
    ibms, to_world = bind_of(skin)
    names = [j['nodes'][n].get('name', '') for n in skin['joints']]
    heads = [k for k, s in enumerate(names) if re.search('head', s, re.I) and
             not re.search('end|top|nub', s, re.I)]
    k = heads[0] if heads else max(range(len(names)), key=lambda q: world(skin['joints'][q])[1][3])
    h = top - bottom
    head = mat_mul(to_world, mat_inv(ibms[k]))  # the head joint's world at bind
    back = mat_inv(to_world)
    pos = []
    for dx, dz in ((0.01, 0), (-0.01, 0), (0, 0.01)):
        w = [head[0][3] + dx * h, top + rise * h, head[2][3] + dz * h, 1]
        pos.append([sum(back[r][i] * w[i] for i in range(4)) for r in range(3)])

    def add(data, comp, kind, count, target, bounds=None):
        while len(buf) % 4:
            buf.append(0)
        j['bufferViews'].append({'buffer': 0, 'byteOffset': len(buf), 'byteLength': len(data),
                                 'target': target})
        buf.extend(data)
        acc = {'bufferView': len(j['bufferViews']) - 1, 'componentType': comp, 'count': count,
               'type': kind}
        if bounds:
            acc['min'], acc['max'] = bounds
        j['accessors'].append(acc)
        return len(j['accessors']) - 1
    flat = [float(x) for v in pos for x in v]
    attrs = {'POSITION': add(struct.pack('<9f', *flat), 5126, 'VEC3', 3, 34962,
                             ([min(v[i] for v in pos) for i in range(3)],
                              [max(v[i] for v in pos) for i in range(3)])),
             'JOINTS_0': add(struct.pack('<12H', *([k, 0, 0, 0] * 3)), 5123, 'VEC4', 3, 34962),
             'WEIGHTS_0': add(struct.pack('<12f', *([1, 0, 0, 0] * 3)), 5126, 'VEC4', 3, 34962)}
    indices = add(struct.pack('<3H', 0, 1, 2) + b'\0\0', 5123, 'SCALAR', 3, 34963)
    j['bufferViews'][-1]['byteLength'] = 6
    j['meshes'].append({'name': 'Crown', 'primitives': [{'attributes': attrs,
                                                         'indices': indices}]})
    j['nodes'].append({'name': 'Crown', 'mesh': len(j['meshes']) - 1, 'skin': skin_id})
    j['scenes'][j.get('scene', 0)]['nodes'].append(len(j['nodes']) - 1)
    while len(buf) % 4:
        buf.append(0)
    j['buffers'][0]['byteLength'] = len(buf)
    return j, struct.pack('<I4s', len(buf), b'BIN\0') + bytes(buf) + rest[8 + bl:]


def joints_of(j):
    return {n for s in j.get('skins', []) for n in s['joints']}


def sides(name):
    """Left <-> Right, .L/_L <-> .R/_R at the end, _L_ <-> _R_."""
    name = name.replace('Left', '\0').replace('Right', 'Left').replace('\0', 'Right')
    name = re.sub(r'([._])L$', '\\1\0', name)
    name = re.sub(r'([._])R$', r'\1L', name).replace('\0', 'R')
    return name.replace('_L_', '\0').replace('_R_', '_L_').replace('\0', '_R_')


def rewrite(kind, j, rest):
    if kind == 'winding':
        return winding(j, rest)
    if kind == 'shuffle':
        return shuffle(j, rest)
    if kind == 'crown':
        return crown(j, rest)
    if kind == 'turn37':
        a = math.radians(37) / 2
        under_root(j, {'name': 'Turn', 'rotation': [0, math.sin(a), 0, math.cos(a)]})
    elif kind == 'scale100':
        under_root(j, {'name': 'Scale', 'scale': [100, 100, 100]})
    elif kind == 'mirror':
        under_root(j, {'name': 'Mirror', 'scale': [-1, 1, 1]})
    elif kind == 'sides':
        for n in j['nodes']:
            if 'name' in n:
                n['name'] = sides(n['name'])
    elif kind == 'anon':
        for i in joints_of(j):
            j['nodes'][i]['name'] = 'joint_%d' % i
    return j, rest


def summary(report_path):
    if not os.path.exists(report_path):
        return None
    c = json.load(open(report_path))['characters'][0]
    tails = [p['decision'] for p in c['pieces'] if p['decision'].startswith('tail_')]
    return tails, [ch.get('vertices') for ch in c['chains']], len(c.get('left_torn', []))


def run(retail, src, out):
    rc = subprocess.run([retail, '-q', src, out], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    return rc, summary(out[:-4] + '.report.json')


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    retail, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    kinds = ['winding', 'turn37', 'scale100', 'mirror', 'sides', 'anon', 'shuffle', 'crown']
    if os.environ.get('KINDS'):  # a comma list of the kinds above: only those
        kinds = [k for k in os.environ['KINDS'].split(',') if k in kinds]
    print('model | rewrite | same as the original | original -> rewritten')
    for path in sys.argv[3:]:
        name = os.path.basename(path)[:-4]
        _, base = run(retail, path, os.path.join(out, name + '.glb'))
        for kind in kinds:
            j, rest = read_glb(path)
            j, rest = rewrite(kind, j, rest)
            src = os.path.join(out, '%s.%s.in.glb' % (name, kind))
            dst = os.path.join(out, '%s.%s.glb' % (name, kind))
            write_glb(src, j, rest)
            rc, got = run(retail, src, dst)
            same = 'same' if got == base else 'DIFFERS'
            if kind == 'sides' and got is not None:
                a = read_glb(os.path.join(out, name + '.glb'))[1]
                b = read_glb(dst)[1]
                same += ', binary chunk ' + ('identical' if a == b else 'differs')
            print('%s | %s | %s | %s -> %s' % (name, kind, same, base,
                                                got if got is not None else 'exit %d' % rc))


if __name__ == '__main__':
    main()
