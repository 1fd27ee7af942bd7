#!/usr/bin/env python3
"""The markdown of docs/detection.md section 7 from bench/tail_eval.sh's OUT_DIR: one table row
per model (recall, precision, clips worse than the input or over max(artist, 0.5%), Walk) and
one line of per-clip torn shares per model. Usage: bench/tail_eval_table.py OUT_DIR"""
import glob
import json
import os
import sys

out = sys.argv[1]
rows, lines = [], []
for path in sorted(glob.glob(os.path.join(out, "*.eval.json"))):
    name = os.path.basename(path)[: -len(".eval.json")]
    e = json.load(open(path))
    clips = e["clips"]
    short = lambda c: c["clip"].rsplit("|", 1)[-1]
    worse = [c for c in clips if c["output_torn"] > c["input_torn"] + 1e-9]
    over = [short(c) for c in clips if c["output_torn"] > max(c["artist_torn"], 0.5) + 1e-9]
    art = lambda x: "—" if x < 0 else f"{x:.2f}"
    newly = [short(c) for c in clips if c["newly_torn"] > c["noise_floor"]]
    walk = next((c for c in clips if short(c).endswith("Walk")), None)
    rep_path = os.path.join(out, name + ".report.json")
    swing, loop, decision = "—", "—", ""
    if os.path.exists(rep_path):
        rep = json.load(open(rep_path))
        bakes = [b for ch in rep["characters"] if "bake" in ch for b in ch["bake"]["clips"]]
        walks = [b["tip_swing_deg"] for b in bakes if b["name"].endswith("Walk")]
        loops = [b["loop_closure_deg"] for b in bakes if not b.get("one_shot")]
        swing = f"{min(walks):.1f}" if walks else "—"
        loop = f"{max(loops):.2f}" if loops else "—"
        kinds = sorted({p["decision"] for ch in rep["characters"] for p in ch["pieces"]
                        if p["decision"].startswith("tail")})
        decision = ", ".join(kinds)
    walk_s = f"{art(walk['artist_torn'])} / {walk['input_torn']:.2f} / {walk['output_torn']:.2f}" if walk else "—"
    rows.append(
        f"| {name} | {e['recall']:.3f} | {e['precision']:.3f} | {e['recall_major']:.3f} / "
        f"{e['precision_major']:.3f} | {e['kept_other']} | {e.get('extremity_taken', 0)} | "
        f"{len(clips)} | {len(worse)} | {', '.join(over)} | {', '.join(newly)} | {walk_s} | "
        f"{swing} | {loop} | {decision} |")
    lines.append(f"- **{name}**: " + "; ".join(
        f"{short(c)} {art(c['artist_torn'])}/{c['input_torn']:.2f}/{c['output_torn']:.2f}" for c in clips))
print("| model | recall | precision | by majority: recall / precision | tail keeping other weight "
      "| extremity skin taken | clips | worse than input | over max(artist, 0.5%) | "
      "newly torn beyond the floor | Walk torn % artist / input / output | Walk tip swing ° | "
      "worst loop ° | decisions |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
print()
print("Per clip, torn % of the artist's tail (artist / input / output; — where no artist rig):")
print()
print("\n".join(lines))
