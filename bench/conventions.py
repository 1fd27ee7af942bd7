#!/usr/bin/env python3
"""Naming conventions probe: retail should decide alike whatever rigger named the joints.

Each GLB given is rewritten with its role joints (as `retail info` reports them) renamed as CONVENTION
names them and every other joint `bone_N` (helpers and pelvis-named joints keep their names), and
retail runs on both; one line per model: same or DIFFERS, how many joints were renamed, the roles
counted before and after, and the decisions. Conventions: ue rigify daz mmd zh biped cc unity
mixamo legupper. Standard library only; docs/robustness.md "Names from other riggers" quotes a run.

  bench/conventions.py RETAIL_BIN OUT_DIR CONVENTION MODEL.glb...
"""
import sys, os, re, json, subprocess, importlib.util
spec = importlib.util.spec_from_file_location('inv', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'invariance.py'))
inv = importlib.util.module_from_spec(spec); spec.loader.exec_module(inv)
CONV = {
 'ue': dict(hips='pelvis', spine='spine_0{}', chest='spine_03', neck='neck_01', head='head',
            upper_leg='thigh_{s}', lower_leg='calf_{s}', foot='foot_{s}', shoulder='clavicle_{s}',
            upper_arm='upperarm_{s}', lower_arm='lowerarm_{s}', hand='hand_{s}', l='l', r='r'),
 'rigify': dict(hips='DEF-pelvis', spine='DEF-spine.00{}', chest='DEF-spine.003', neck='DEF-spine.004', head='DEF-spine.006',
            upper_leg='DEF-thigh.{s}', lower_leg='DEF-shin.{s}', foot='DEF-foot.{s}', shoulder='DEF-shoulder.{s}',
            upper_arm='DEF-upper_arm.{s}', lower_arm='DEF-forearm.{s}', hand='DEF-hand.{s}', l='L', r='R'),
 'daz': dict(hips='pelvis', spine='abdomenLower{}', chest='chestUpper', neck='neckLower', head='head',
            upper_leg='{s}ThighBend', lower_leg='{s}Shin', foot='{s}Foot', shoulder='{s}Collar',
            upper_arm='{s}ShldrBend', lower_arm='{s}ForearmBend', hand='{s}Hand', l='l', r='r'),
 'mmd': dict(hips='下半身', spine='上半身{}', chest='上半身2', neck='首', head='頭',
            upper_leg='{s}足', lower_leg='{s}ひざ', foot='{s}足首', shoulder='{s}肩',
            upper_arm='{s}腕', lower_arm='{s}ひじ', hand='{s}手首', l='左', r='右'),
 'zh': dict(hips='骨盆', spine='脊柱{}', chest='胸部', neck='颈', head='头',
            upper_leg='{s}大腿', lower_leg='{s}小腿', foot='{s}脚', shoulder='{s}肩',
            upper_arm='{s}上臂', lower_arm='{s}前臂', hand='{s}手', l='左', r='右'),
 'biped': dict(hips='Bip01 Pelvis', spine='Bip01 Spine{}', chest='Bip01 Spine9', neck='Bip01 Neck', head='Bip01 Head',
            upper_leg='Bip01 {s} Thigh', lower_leg='Bip01 {s} Calf', foot='Bip01 {s} Foot', shoulder='Bip01 {s} Clavicle',
            upper_arm='Bip01 {s} UpperArm', lower_arm='Bip01 {s} Forearm', hand='Bip01 {s} Hand', l='L', r='R'),
 'cc': dict(hips='CC_Base_Pelvis', spine='CC_Base_Spine0{}', chest='CC_Base_Spine09', neck='CC_Base_NeckTwist01', head='CC_Base_Head',
            upper_leg='CC_Base_{s}_Thigh', lower_leg='CC_Base_{s}_Calf', foot='CC_Base_{s}_Foot', shoulder='CC_Base_{s}_Clavicle',
            upper_arm='CC_Base_{s}_Upperarm', lower_arm='CC_Base_{s}_Forearm', hand='CC_Base_{s}_Hand', l='L', r='R'),
 'unity': dict(hips='Hips', spine='Spine{}', chest='Chest', neck='Neck', head='Head',
            upper_leg='{s} Upper Leg', lower_leg='{s} Lower Leg', foot='{s} Foot', shoulder='{s} Shoulder',
            upper_arm='{s} Upper Arm', lower_arm='{s} Lower Arm', hand='{s} Hand', l='Left', r='Right'),
 'mixamo': dict(hips='mixamorig:Hips', spine='mixamorig:Spine{}', chest='mixamorig:Spine2', neck='mixamorig:Neck', head='mixamorig:Head',
            upper_leg='mixamorig:{s}UpLeg', lower_leg='mixamorig:{s}Leg', foot='mixamorig:{s}Foot', shoulder='mixamorig:{s}Shoulder',
            upper_arm='mixamorig:{s}Arm', lower_arm='mixamorig:{s}ForeArm', hand='mixamorig:{s}Hand', l='Left', r='Right'),
 'legupper': dict(hips='Pelvis', spine='Spine_{}', chest='Chest', neck='Neck', head='Head',
            upper_leg='Leg_Upper_{s}', lower_leg='Leg_Lower_{s}', foot='Foot_{s}', shoulder='Shoulder_{s}',
            upper_arm='Arm_Upper_{s}', lower_arm='Arm_Lower_{s}', hand='Hand_{s}', l='L', r='R'),
}


def roles(retail, path):
    """The roles `retail info` prints: role -> joint names."""
    out = subprocess.run([retail, 'info', path], capture_output=True, text=True).stdout
    r = {}; on = False
    for line in out.splitlines():
        if line.strip().startswith('roles'): on = True; continue
        if on:
            m = re.match(r'\s+(\w+): (.*)', line)
            if m and not line.strip().startswith('joints'): r[m.group(1)] = m.group(2).split(' ')
            else: on = False
    return r


def rename(j, rl, conv):
    """Renames j's joints (in place) by the roles rl as convention conv names them; returns how many
    role joints were renamed."""
    c = CONV[conv]; names = {}
    byname = {}
    joints = {n for sk in j.get('skins', []) for n in sk['joints']}
    for i, n in enumerate(j['nodes']):
        if i in joints: byname.setdefault(n.get('name'), []).append(i)
    def put(old, new):
        for i in byname.get(old, []): names[i] = new
    for key, val in rl.items():
        if key == 'spine':
            k = 1
            for nm in val:
                if re.search(r'(?i)hip|pelvis', nm): continue  # a pelvis joint on the spine keeps its name
                if nm not in rl.get('chest', []) and nm not in rl.get('hips', []): put(nm, c['spine'].format(k)); k += 1
            continue
        m = re.match(r'(left|right)(UpperLeg|LowerLeg|Foot|Shoulder|UpperArm|LowerArm|Hand)$', key)
        if m:
            s = c['l'] if m.group(1) == 'left' else c['r']
            role = {'UpperLeg': 'upper_leg', 'LowerLeg': 'lower_leg', 'Foot': 'foot', 'Shoulder': 'shoulder',
                    'UpperArm': 'upper_arm', 'LowerArm': 'lower_arm', 'Hand': 'hand'}[m.group(2)]
            put(val[0], c[role].format(s=s)); continue
        if key in ('hips', 'chest', 'neck', 'head'): put(val[0], c[key])
    joints = {n for sk in j.get('skins', []) for n in sk['joints']}
    for i in joints:
        if i not in names and not re.search(r'(?i)pole|ik|target|_end|hip|pelvis', j['nodes'][i].get('name', '')): j['nodes'][i]['name'] = 'bone_%d' % i
    for i, nm in names.items(): j['nodes'][i]['name'] = nm
    return len(names)


if __name__ == '__main__':
    if len(sys.argv) < 5 or sys.argv[3] not in CONV:
        sys.exit(__doc__)
    retail, out, conv = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    from concurrent.futures import ThreadPoolExecutor
    def one(path):
        name = os.path.basename(path)[:-4]
        _, base = inv.run(retail, path, os.path.join(out, name + '.glb'))
        rl = roles(retail, path)
        j, rest = inv.read_glb(path)
        n = rename(j, rl, conv)
        src = os.path.join(out, name + '.' + conv + '.in.glb')
        inv.write_glb(src, j, rest)
        rc, got = inv.run(retail, src, os.path.join(out, name + '.' + conv + '.glb'))
        rl2 = roles(retail, src)
        return '%s | %s | %d renamed | roles %s | %s -> %s' % (name, 'same' if got == base else 'DIFFERS', n,
               'same-count' if len(rl2) == len(rl) else '%d->%d' % (len(rl), len(rl2)), base, got if got is not None else 'exit %d' % rc)
    with ThreadPoolExecutor(2) as ex:
        for line in ex.map(one, sys.argv[4:]): print(line, flush=True)
