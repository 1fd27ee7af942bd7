#!/usr/bin/env python3
"""Issue 31's sweeps over generated head pieces (docs/hair.md "Hair found from the model" and
"Stiffness and damping from the clump"). Usage: bench/hair_sweep.py BUILD_DIR OUT_DIR [found|solver]

found:  the hair cues of every piece touching the head on each variant (make_test_rig options),
        the decision and the figures of the chains grown, at the default settings.
solver: per reference stiffness and damping ratio, the worst head-turn figures over the hair
        variants and their swing (HeadTurn and Walk tip swing relative to the head)."""
import itertools, json, os, subprocess, sys

build, out = sys.argv[1], sys.argv[2]
what = sys.argv[3] if len(sys.argv) > 3 else "found"
os.makedirs(out, exist_ok=True)

HAIR = [("ponytail", ["--ponytail"])] + \
    [(f"ponytail L{l} R{r}", ["--ponytail", "--hair-length", str(l), "--hair-radius", str(r)])
     for l in (0.6, 1.4) for r in (0.6, 1.6)] + \
    [("ponytail split", ["--ponytail", "--hair-split"]),
     ("ponytail cm", ["--ponytail", "--cm"]), ("ponytail H 0.9", ["--ponytail", "--height", "0.9"]),
     ("braid", ["--braid"]), ("braid L0.7", ["--braid", "--hair-length", "0.7"]),
     ("braid L1.3 R1.6", ["--braid", "--hair-length", "1.3", "--hair-radius", "1.6"]),
     ("braid L1.3", ["--braid", "--hair-length", "1.3"]),
     ("braid split", ["--braid", "--hair-split"]),
     ("long hair", ["--long-hair"]), ("long hair L0.8", ["--long-hair", "--hair-length", "0.8"]),
     ("long hair L1.2 R1.4", ["--long-hair", "--hair-length", "1.2", "--hair-radius", "1.4"]),
     ("long hair split", ["--long-hair", "--hair-split"])]
SHORTER = [(f"ponytail L{l}", ["--ponytail", "--hair-length", str(l)]) for l in (0.3, 0.4, 0.5, 0.6, 0.7)] + \
    [(f"braid L{l}", ["--braid", "--hair-length", str(l)]) for l in (0.2, 0.3, 0.4)]
OTHER = [("short hair", ["--short-hair"]), ("hat", ["--hat"]), ("cat ears", ["--cat-ears"]),
         ("long ears", ["--ears"]), ("hat split", ["--hat", "--hair-split"]),
         ("cat ears split", ["--cat-ears", "--hair-split"]), ("short hair split", ["--short-hair", "--hair-split"])]


def job(name, rig_args, retail_args):
    stem = os.path.join(out, name.replace(" ", "_").replace(".", ""))
    if not os.path.exists(stem + ".glb"):
        subprocess.run([f"{build}/make_test_rig", stem + ".glb", "--tail", "none"] + rig_args,
                       check=True, capture_output=True)
    subprocess.run([f"{build}/retail", stem + ".glb", stem + "_out.glb", "-q", "--threads", "2"]
                   + retail_args, check=True, capture_output=True)
    return json.load(open(stem + "_out.report.json"))["characters"][0]


def chains(c):
    rows = []
    for ch in c.get("hair", {}).get("chains", []):
        ht = ch.get("head_turn", {})
        swing = {b["name"]: b["tip_swing_deg"] for b in ch.get("bake", {}).get("clips", [])}
        conv = all(b.get("converged", True) for b in ch.get("bake", {}).get("clips", []))
        rows.append((ht.get("edge_max_p99_percent", 0), ht.get("worst_edge", {}).get("stretch_percent", 0),
                     ht.get("quiet_tip_movement_mm", 0), ht.get("penetration_mm", 0),
                     swing.get("HeadTurn", 0), swing.get("Walk", 0), conv, ch["stiffness_per_s2"],
                     ch["damping_per_s"], ch["length"]))
    return rows


if what == "found":
    print("| variant | piece | decision | length_heads | drop_heads | head_weight | p99 % | worst % | quiet mm | penetration mm | k | c |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, args in HAIR + SHORTER + OTHER:
        c = job(name, args, [])
        rows = chains(c)
        touching = [p for p in c["pieces"] if "hair_cues" in p]
        if not touching:
            print(f"| {name} | none | (no far piece touches the head) | | | | | | | | | |")
        i = 0
        for p in touching:
            h = p["hair_cues"]
            fig = ["", "", "", "", "", ""]
            if p["decision"] == "hair" and i < len(rows):
                r = rows[i]; i += 1
                fig = [f"{r[0]:.2f}", f"{r[1]:.2f}", f"{r[2]:.2g}", f"{r[3]:.2g}", f"{r[7]:.0f}", f"{r[8]:.1f}"]
            print(f"| {name} | {p['id']} | {p['decision']} | {h['length_heads']:.2f} | {h['drop_heads']:.2f} | "
                  f"{h['head_weight']:.2f} | " + " | ".join(fig) + " |")
else:
    print("| k_ref s⁻² | ζ | worst p99 %, default sizes | worst p99 %, scaled (variant) | worst edge % | quiet mm | penetration mm | HeadTurn swing °: min, ponytail | Walk swing min–max ° | loops closed |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k, z in itertools.product((590, 790, 990, 1190, 1580), (0.2, 0.3, 0.35, 0.4, 0.45)):
        plain = 0; worst = (0, ""); we = q = pen = 0; ht_min = 1e9; pony = 0; walk = []; conv = True
        for name, args in HAIR:
            for r in chains(job(name, args, ["--hair-stiffness-ref", str(k), "--hair-damping-ratio", str(z)])):
                scaled = "--hair-length" in args or "--hair-radius" in args
                if not scaled: plain = max(plain, r[0])
                elif r[0] > worst[0]: worst = (r[0], name)
                we = max(we, r[1]); q = max(q, r[2]); pen = max(pen, r[3])
                ht_min = min(ht_min, r[4]); walk.append(r[5]); conv = conv and r[6]
                if name == "ponytail": pony = r[4]
        print(f"| {k} | {z} | {plain:.2f} | {worst[0]:.2f} ({worst[1]}) | {we:.2f} | {q:.2g} | {pen:.2g} | "
              f"{ht_min:.1f}, {pony:.1f} | {min(walk):.1f}–{max(walk):.1f} | {'yes' if conv else 'no'} |")
