#!/usr/bin/env python3
"""Sweeps of detection's and the harm check's thresholds over the whole corpus, with the
half/half check of docs/detection.md section 8.

    bench/sweep_detect.py BUILD_DIR OUT_DIR [--only PARAM ...] [-j N]

The corpus: every tailed shared model (`../shared/*/auto-rigged`, `../shared/real-rigger`;
truth = the artist's tail or the grafted primitives), generated tails of every class
(make_test_rig, truth = its .truth.json), and the negatives: every shared original (each has
its artist's tail rig, or no tail: nothing may be grown) and generated tailless rigs. For every
threshold and every value of its grid, retail runs on each file with that one value changed
(the others at their defaults) and each file is scored:

  tailed   meets = recall >= 0.90, precision >= 0.80, and in no clip the artist's tail tears
           more than in the input or is newly torn beyond the noise floor (tests/tail_eval)
  negative false = retail grew anything (a chain or a rigid tail); `rejected`: tail candidates
           the harm check refused (a detection error the harm check caught), counted apart

A value's score is meets - false; ties go to the fewest negatives with a refused candidate,
then to the middle of the run. The half/half check: the files sorted by name and dealt
alternately into halves A and B (tailed and negatives each); the value with the best score on
A (ties: the one nearest the middle of the tied run, then the smaller) is scored on B, and the
other way round. `--base "--flag value"` gives every run a threshold already chosen (coordinate
steps: docs/detection.md section 8). Writes OUT_DIR/sweep.json and prints the tables as markdown.
Needs only python3. Runs are cached in OUT_DIR/runs by file and arguments.
"""
import argparse
import concurrent.futures as cf
import glob
import hashlib
import json
import os
import subprocess
import sys

GRIDS = {  # flag: (default, values)
    "--evidence-tear-ratio": (6, [2, 3, 4, 5, 6, 8, 10, 12, 14, 17, 20, 25, 30, 50]),
    "--evidence-own-bones": (0.1, [0.02, 0.05, 0.1, 0.2, 0.35, 0.5]),
    "--evidence-mix": (0.05, [0.01, 0.02, 0.05, 0.1, 0.2]),
    "--leg-weight": (0.5, [0.3, 0.4, 0.5, 0.6, 0.7]),
    "--min-tail-vertices": (9, [0, 3, 6, 9, 12, 20, 40]),
    "--harm-noise": (0.001, [0, 0.0003, 0.001, 0.002, 0.005, 0.01]),
    "--centroid-ratio": (0.4, [0.3, 0.325, 0.35, 0.375, 0.4, 0.425, 0.45, 0.5]),
    "--elongation": (1.8, [1.2, 1.4, 1.6, 1.8, 1.9, 2.0, 2.4]),
    "--slenderness": (2, [1, 1.5, 2, 2.5, 3, 4]),
    "--misweight-ratio": (2, [1.5, 1.75, 2, 2.5, 3, 4, 5]),
    "--base-mixed-mirror": (0, [0, 0.01]),
}

# Generated tails (make_test_rig options): every class, sizes, units, densities.
GENERATED = {
    "carried": "--tail carried", "hanging": "--tail hanging", "curled": "--tail curled",
    "short": "--tail short", "thin": "--tail thin", "spiky": "--tail carried --spikes 12",
    "curled180-r0.6": "--tail curled --curl 180 --tail-radius 0.6",
    "curled-h0.18": "--tail curled --height 0.18", "curled-cm": "--tail curled --cm --height 180",
    "carried-rotated-cm": "--tail carried --rotated --cm", "hanging-h0.3": "--tail hanging --height 0.3",
    "thin-r0.6-l1.5": "--tail thin --tail-radius 0.6 --tail-length 1.5",
    "short-l0.6": "--tail short --tail-length 0.6",
    "pompom": "--tail short --tail-radius 3 --thick-base",
    "carried-r2-l1.4": "--tail carried --tail-radius 2 --tail-length 1.4",
    "hanging-plates": "--tail hanging --spikes 12 --tail-radius 1.3",
    "two-shells": "--tail carried --two-shells --rotated",
    "curled-thick-base": "--tail curled --thick-base",
    "hanging-all-pieces": "--tail hanging --all-pieces",
}
GENERATED_NONE = {
    "none": "--tail none", "none-ears": "--tail none --ears",
    "none-haunch-h0.18": "--tail none --thick-base --height 0.18",
    "none-all-pieces": "--tail none --all-pieces", "none-cm": "--tail none --cm --height 180",
}


def corpus(shared, out, make_rig):
    tailed, negative = [], []
    for d in ("data", "animals"):
        for f in sorted(glob.glob(f"{shared}/{d}/auto-rigged/*-tail-on-legs.glb")):
            base = os.path.basename(f)[: -len("-tail-on-legs.glb")]
            tailed.append((os.path.basename(f)[:-4], f, f"{shared}/{d}/originals/{base}.glb"))
        for f in sorted(glob.glob(f"{shared}/{d}/originals/*.glb")) + sorted(
                glob.glob(f"{shared}/{d}/originals/*.vrm")):
            negative.append(("orig-" + os.path.basename(f).rsplit(".", 1)[0], f))
    for f in sorted(glob.glob(f"{shared}/data/auto-rigged/character-grafted-tail*.glb")) + sorted(
            glob.glob(f"{shared}/real-rigger/*.glb")):
        tailed.append((os.path.basename(f)[:-4], f, "prims:Body/3,Body/4"))
    os.makedirs(f"{out}/inputs", exist_ok=True)
    for table, dest, tail in ((GENERATED, tailed, True), (GENERATED_NONE, negative, False)):
        for name, opts in table.items():
            path = f"{out}/inputs/gen-{name}.glb"
            if not os.path.exists(path):
                subprocess.run([make_rig, *opts.split(), path], check=True,
                               stdout=subprocess.DEVNULL)
            dest.append(("gen-" + name, path, path[:-4] + ".truth.json") if tail else
                        ("gen-" + name, path))
    return tailed, negative


def run_one(build, out, item, args):
    key = hashlib.sha1(json.dumps([item[0], args, 2]).encode()).hexdigest()[:16]
    cache = f"{out}/runs/{key}.json"
    if os.path.exists(cache):
        return json.load(open(cache))
    glb = f"{out}/runs/{key}.glb"
    r = subprocess.run([f"{build}/retail", item[1], glb, "-q", *args],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    row = {"name": item[0], "args": args, "exit": r.returncode}
    if r.returncode == 0:
        rep = json.load(open(glb[:-4] + ".report.json"))
        row["grown"] = sum(1 for c in rep["characters"] for p in c["pieces"]
                           if p["decision"] in ("tail_chain", "tail_rigid"))
        row["detected"] = sum(1 for c in rep["characters"] for p in c["pieces"]
                              if p["decision"].startswith("tail"))
        if len(item) == 3:
            e = json.loads(subprocess.run([f"{build}/tests/tail_eval", item[2], item[1], glb],
                                          stdout=subprocess.PIPE, check=True, text=True).stdout)
            worse = [c["clip"] for c in e["clips"] if c["output_torn"] > c["input_torn"] + 1e-9]
            newly = [c["clip"] for c in e["clips"] if c["newly_torn"] > c["noise_floor"]]
            row.update(recall=e["recall"], precision=e["precision"], worse=worse, newly=newly)
            row["meets"] = (e["recall"] >= 0.9 and e["precision"] >= 0.8 and not worse and
                            not newly)
        else:
            row["false"] = row["grown"] > 0
            row["rejected"] = row["detected"] - row["grown"]
        os.remove(glb[:-4] + ".report.json")
    os.remove(glb) if os.path.exists(glb) else None
    json.dump(row, open(cache, "w"))
    return row


def score(rows, names):
    meets = sum(1 for r in rows if r["name"] in names and r.get("meets"))
    false = sum(1 for r in rows if r["name"] in names and r.get("false"))
    return meets, false


def rejected(rows):
    """Negatives with a tail candidate the harm check refused, by name."""
    return sorted(r["name"] for r in rows if r.get("rejected"))


def choose(values, scores, refused=None):
    """The best score's values; among them those with the fewest negatives holding a refused
    candidate (`refused`, per value); then the one nearest the middle of that run, the smaller
    on a tie."""
    best = max(m - f for m, f in scores)
    tied = [i for i, (m, f) in enumerate(scores) if m - f == best]
    if refused is not None:
        least = min(refused[i] for i in tied)
        tied = [i for i in tied if refused[i] == least]
    mid = (tied[0] + tied[-1]) / 2  # the middle of the tied run: away from both cliffs
    return min(tied, key=lambda i: (abs(i - mid), i))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--only", action="append", help="sweep only this flag (repeatable), e.g. --only=--elongation")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--base", default="", help="arguments given to every run (a coordinate step: "
                    "thresholds already chosen)")
    a = ap.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    shared = os.environ.get("SHARED", os.path.join(os.path.dirname(repo), "shared"))
    os.makedirs(f"{a.out}/runs", exist_ok=True)
    tailed, negative = corpus(shared, a.out, f"{a.build}/make_test_rig")
    items = tailed + negative
    half = {"A": set(), "B": set()}
    for group in (tailed, negative):
        for i, it in enumerate(sorted(group)):
            half["AB"[i % 2]].add(it[0])
    result = {"corpus": {"tailed": [t[0] for t in tailed], "negative": [n[0] for n in negative],
                         "A": sorted(half["A"]), "B": sorted(half["B"])}, "params": {}}
    print(f"corpus: {len(tailed)} tailed, {len(negative)} negative; "
          f"halves A {len(half['A'])}, B {len(half['B'])}\n")
    for flag, (default, values) in GRIDS.items():
        if a.only and flag not in a.only:
            continue
        base = [b for b in a.base.split() if b]
        if flag in base:
            continue
        jobs = [(it, base + [flag, str(v)]) for v in values for it in items]
        with cf.ThreadPoolExecutor(a.j) as pool:
            rows = list(pool.map(lambda j: run_one(a.build, a.out, *j), jobs))
        per = {v: [r for r in rows if r["args"][-1] == str(v)] for v in values}
        sc = {h: [score(per[v], half[h]) for v in values] for h in "AB"}
        allsc = [score(per[v], half["A"] | half["B"]) for v in values]
        ref = {h: [len([n for n in rejected(per[v]) if n in half[h]]) for v in values]
               for h in "AB"}
        pick = {h: choose(values, sc[h], ref[h]) for h in "AB"}
        overall = choose(values, allsc, [len(rejected(per[v])) for v in values])
        failing = {str(v): sorted(r["name"] for r in per[v] if r.get("meets") is False or
                                  r.get("false") or r["exit"] != 0) for v in values}
        result["params"][flag] = {"default": default, "values": values, "A": sc["A"],
                                  "B": sc["B"], "all": allsc,
                                  "chosen_on_A": values[pick["A"]], "chosen_on_B": values[pick["B"]],
                                  "chosen": values[overall],
                                  "failing": failing}
        print(f"### `{flag}` (default {default}{'; with ' + a.base if base else ''})\n")
        print("| value | A: meets / false | B: meets / false | all: meets / false | misses | "
              "negatives with a refused candidate |")
        print("|---|---|---|---|---|---|")
        for i, v in enumerate(values):
            mark = " **(default)**" if v == default else ""
            print(f"| {v}{mark} | {sc['A'][i][0]} / {sc['A'][i][1]} | {sc['B'][i][0]} / "
                  f"{sc['B'][i][1]} | {allsc[i][0]} / {allsc[i][1]} | "
                  f"{', '.join(failing[str(v)]) or '—'} | "
                  f"{', '.join(rejected(per[v])) or '—'} |")
        ia, ib = pick["A"], pick["B"]
        print(f"\nChosen on all: {values[overall]}. Chosen on A: {values[ia]} → on B {sc['B'][ia][0]} meet / {sc['B'][ia][1]} "
              f"false; chosen on B: {values[ib]} → on A {sc['A'][ib][0]} meet / "
              f"{sc['A'][ib][1]} false.\n")
        sys.stdout.flush()
    result["base"] = a.base
    name = "sweep" + ("-" + "_".join(b.strip("-") for b in a.base.split()) if a.base else "")
    json.dump(result, open(f"{a.out}/{name}.json", "w"), indent=1)


if __name__ == "__main__":
    main()
